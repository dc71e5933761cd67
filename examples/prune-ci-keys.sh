#!/bin/sh
# Retire the keys CI jobs created (named ci-*) that nobody has used for 30 days (never used: made
# 30 days ago or more), and print the ids revoked. The key in use is never pruned. The exit
# status is crawl's: 0 when every revoke went through.
# Needs: CRAWL_API_KEY; jq.
set -u
status=0
out=$(crawl keys prune --unused-for "${PRUNE_AFTER:-30d}" --name-glob 'ci-*' --yes --json) || status=$?
printf '%s\n' "$out" | jq -r '.revoked[] | "revoked \(.id) \(.name)"'
printf '%s\n' "$out" | jq -r '.kept[] | "kept \(.id): \(.reason)"' >&2
exit "$status"
