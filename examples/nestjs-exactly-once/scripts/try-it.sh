#!/usr/bin/env bash
# With the ledger running (DATABASE_URL=... npm start), earn points twice under ONE key: one effect, one answer.
set -euo pipefail
API=${API:-http://localhost:3000}
MEMBER=member-$RANDOM$RANDOM
KEY=$(node -p 'crypto.randomUUID()')
earn() {
  curl -s -i -X POST "$API/members/$MEMBER/earn" -H 'x-cashier: till-1' -H "Idempotency-Key: $KEY" \
    -H 'content-type: application/json' -d '{"points":40}'
}
earn | grep -iE '^HTTP|^idempotent-replayed|balance'  # HTTP/1.1 201 Created, {"entryId":…,"balance":40}
earn | grep -iE '^HTTP|^idempotent-replayed|balance'  # the same answer, with idempotent-replayed: true
curl -s "$API/members/$MEMBER"                       # {"memberId":…,"balance":40}: earned once
