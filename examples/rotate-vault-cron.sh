#!/bin/sh
# A cron job: the key lives in Vault (secret/crawl, field api-key). Read it, rotate it, and write
# the new key back: `vault kv put ... api-key=-` reads the value from standard input.
# Needs: VAULT_ADDR and a VAULT_TOKEN allowed to read and write secret/crawl.
set -eu
CRAWL_API_KEY=$(vault kv get -field=api-key secret/crawl)
export CRAWL_API_KEY
crawl keys rotate --yes --to-command 'vault kv put secret/crawl api-key=-'
