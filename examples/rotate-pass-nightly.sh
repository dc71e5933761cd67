#!/bin/sh
# A nightly job whose key lives in pass (the standard Unix password manager), entry ci/crawl: the
# key is rotated once it is more than 30 days old (until then crawl says it is not due, and exits
# 0), and the script goes on. The rotation revokes the key this script read into CRAWL_API_KEY, so
# it reads the key from pass again before its next crawl command. `pass insert -m -f` reads the
# new key from standard input (without -m, pass wants a terminal).
# Needs: pass with the entry ci/crawl, its gpg key usable without a prompt (gpg-agent, or a key
# without a passphrase); CRAWL_BASE_URL; JOB_ID, a crawl this job waits for.
set -eu
CRAWL_API_KEY=$(pass show ci/crawl)
export CRAWL_API_KEY
crawl keys rotate --yes --if-older-than 30d --to-command 'pass insert -m -f ci/crawl'
CRAWL_API_KEY=$(pass show ci/crawl)
crawl job watch "$JOB_ID" --interval 5 --max-wait 3600 > /dev/null
echo "crawl $JOB_ID completed"
