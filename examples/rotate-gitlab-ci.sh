#!/bin/sh
# GitLab CI: rotate the key in the project's CI/CD variable CRAWL_API_KEY. glab variable update
# reads the value from its standard input; crawl revokes the old key only once glab has stored
# the new one, and revokes the new one again if glab fails.
# Needs: CRAWL_API_KEY (the variable), GITLAB_TOKEN (a token allowed to update variables).
set -eu
crawl keys rotate --yes --to-command 'glab variable update CRAWL_API_KEY --masked'
