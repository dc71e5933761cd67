#!/bin/sh
# A pipeline step that goes on only when the crawl it started has completed: wait for the job
# (at most an hour), then read its pages count. `job watch` exits 0 only for a completed job
# (10 errored, 11-13 cancelled, 7 when --max-wait ran out), so `set -e` stops the pipeline.
# Needs: CRAWL_API_KEY; JOB_ID; jq.
set -eu
crawl job watch "$JOB_ID" --interval 5 --max-wait 3600 > /dev/null
pages=$(crawl job status "$JOB_ID" --exit-status --json | jq -r '.job.pagesFinished')
echo "crawl $JOB_ID completed with $pages pages"
