# GitHub Actions on Windows (a `shell: pwsh` step): rotate the key the job got from the repository
# secret CRAWL_API_KEY, and put the new one back into that secret. crawl runs --to-command through
# cmd.exe, not PowerShell, so the command is one cmd.exe runs as it is; gh reads the value from its
# standard input. A failed native command does not stop a PowerShell script: crawl's status is
# passed on with `exit $LASTEXITCODE`.
# Needs: CRAWL_API_KEY (from secrets), GH_TOKEN (a token allowed to write the repo's secrets).
$ErrorActionPreference = 'Stop'
crawl keys rotate --yes --to-command 'gh secret set CRAWL_API_KEY'
exit $LASTEXITCODE
