#!/bin/sh
# GitHub Actions: rotate the key the job got from the repository secret CRAWL_API_KEY, and put the
# new one back into that secret. gh reads the value from its standard input; crawl revokes the old
# key only once gh has stored the new one, and revokes the new one again if gh fails.
# Needs: CRAWL_API_KEY (from secrets), GH_TOKEN (a token allowed to write the repo's secrets).
set -eu
crawl keys rotate --yes --to-command 'gh secret set CRAWL_API_KEY'
