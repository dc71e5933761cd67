#!/bin/sh
# A machine whose crawl never holds the key itself: the profile reads it from Vault at each run
# (key-command prints it) and stores a new one there (key-store-command reads it on standard
# input). `crawl keys rotate` with no flag then rotates it in Vault: create, check, store, read
# back, and only then revoke the old key.
# Needs: VAULT_ADDR and a VAULT_TOKEN allowed to read and write secret/crawl; CRAWL_BASE_URL.
set -eu
crawl config set key-command 'vault kv get -field=api-key secret/crawl'
crawl config set key-store-command 'vault kv put secret/crawl api-key=-'
crawl auth status
crawl keys rotate --yes
