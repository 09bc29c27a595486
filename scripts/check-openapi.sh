#!/usr/bin/env bash
# Checks GET /openapi.json against a live server: the document must be valid OpenAPI 3.1
# (openapi-spec-validator), and the server must behave as it says (schemathesis, every check).
#
#   scripts/check-openapi.sh PATH/TO/tnotes-server
#
# Starts the server on a free loopback port with a fresh data dir and one user, stops it on exit.
# Exits non-zero when anything fails. Bounded: about 30 s with the defaults, never much past ST_TIMEOUT.
#   MAX_EXAMPLES  test cases per operation and phase (default 30)
#   ST_TIMEOUT    seconds both schemathesis passes may run in all (default 150)
#   SEED          schemathesis seed (default: random; the run prints the one it used)
#   SCHEMA        test against this schema file instead of the served /openapi.json
set -euo pipefail

if [[ $# -ne 1 || ! -x "$1" ]]; then
    echo "usage: $0 PATH/TO/tnotes-server" >&2
    exit 2
fi
BIN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
MAX_EXAMPLES=${MAX_EXAMPLES:-30}
ST_TIMEOUT=${ST_TIMEOUT:-150}

if ! python3 -c 'import schemathesis' 2>/dev/null; then
    python3 -m pip install -q schemathesis
fi
if ! python3 -c 'import openapi_spec_validator' 2>/dev/null; then
    python3 -m pip install -q openapi-spec-validator
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/check-openapi.XXXXXX")
SERVER_PID=""
cleanup() {
    if [[ -n "$SERVER_PID" ]] && kill -0 "$SERVER_PID" 2>/dev/null; then
        kill -TERM "$SERVER_PID" 2>/dev/null || true
        for _ in $(seq 1 50); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$SERVER_PID" 2>/dev/null || true
    fi
    rm -rf "$WORK"
}
trap cleanup EXIT

DATA="$WORK/data"
TOKEN=$("$BIN" user add alice --token --data-dir "$DATA" | tail -n 1)
[[ "$TOKEN" == tn_* ]] || { echo "check-openapi: no token from 'user add'" >&2; exit 1; }

"$BIN" serve --data-dir "$DATA" --host 127.0.0.1 --port 0 --rate-limit 1000 >"$WORK/server.out" 2>"$WORK/server.log" &
SERVER_PID=$!
URL=""
for _ in $(seq 1 300); do
    URL=$(sed -n 's|^tnotes-server listening on \(http://[^ ]*\).*|\1|p' "$WORK/server.out" | head -n 1)
    [[ -n "$URL" ]] && break
    kill -0 "$SERVER_PID" 2>/dev/null || { echo "check-openapi: the server exited:" >&2; cat "$WORK/server.log" >&2; exit 1; }
    sleep 0.1
done
[[ -n "$URL" ]] || { echo "check-openapi: the server did not start listening in 30 s" >&2; exit 1; }
echo "check-openapi: server at $URL"

status=0

echo "== openapi-spec-validator"
if [[ -n "${SCHEMA:-}" ]]; then
    cp "$SCHEMA" "$WORK/openapi.json"
    LOCATION=$(cd "$(dirname "$SCHEMA")" && pwd)/$(basename "$SCHEMA")
else
    if ! curl -fsS --max-time 10 "$URL/openapi.json" -o "$WORK/openapi.json"; then
        echo "check-openapi: GET $URL/openapi.json failed" >&2
        exit 1
    fi
    LOCATION="$URL/openapi.json"
fi
python3 -m openapi_spec_validator --schema 3.1 "$WORK/openapi.json" || status=1

# What a generator cannot know from a schema: a positive upload declares its body's real SHA-256,
# transcript segments end no earlier than they start, a change's record agrees with its envelope
# (same id and time), and a long-poll waits at most 1 s, so the run stays short.
mkdir -p "$WORK/hooks"
cat >"$WORK/hooks/tnotes_hooks.py" <<'EOF'
import hashlib
import re
import uuid

import schemathesis
from schemathesis.core import NotSet
from schemathesis.transport.serialization import serialize_binary

SHA_HEX = re.compile(r"^[0-9a-fA-F]{64}$")


def _fix_segments(body):
    transcript = body.get("transcript") if isinstance(body, dict) else None
    segments = transcript.get("segments") if isinstance(transcript, dict) else None
    for s in segments if isinstance(segments, list) else []:
        if isinstance(s, dict):
            a, b = s.get("start"), s.get("end")
            if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (a, b)) and b < a:
                s["start"], s["end"] = b, a


def _fix_changes(body):
    changes = body.get("changes") if isinstance(body, dict) else None
    for c in changes if isinstance(changes, list) else []:
        record = c.get("record") if isinstance(c, dict) else None
        if not isinstance(record, dict):
            continue
        if "id" in c:
            record["id"] = c["id"]
        if "updatedAt" in c:
            record["createdAt" if c.get("collection") == "chatMessages" else "updatedAt"] = c["updatedAt"]
        if c.get("collection") != "chatMessages" and "deletedAt" in record:
            record["deletedAt"] = c.get("updatedAt") if c.get("op") == "delete" else None


@schemathesis.hook
def before_call(context, case, kwargs):
    method, path = case.operation.method.upper(), case.operation.path
    if method == "DELETE" and path == "/v1/devices/{deviceId}":
        # The stateful phase feeds GET /v1/devices' ids into this: the run's own device would be revoked, and
        # every later request would test only the 401. A fresh UUID exercises the route (404) and keeps the token.
        if isinstance(case.path_parameters, dict) and "deviceId" in case.path_parameters:
            case.path_parameters["deviceId"] = str(uuid.uuid4())
        return
    if case.meta is not None and case.meta.generation.mode.is_negative:
        return  # a negative case goes out exactly as generated
    if method == "PUT" and path == "/v1/audio/{sermonId}":
        headers = case.headers if case.headers is not None else {}
        given = headers.get("X-Content-SHA256")
        if given is None or SHA_HEX.match(str(given)):
            data = b"" if isinstance(case.body, NotSet) else serialize_binary(case.body)
            headers["X-Content-SHA256"] = hashlib.sha256(data).hexdigest()
            case.headers = headers
    elif method == "POST" and path in ("/api/create-sermon", "/api/update-sermon"):
        _fix_segments(case.body)
    elif method == "POST" and path == "/v1/sync/push":
        _fix_changes(case.body)
    elif method == "GET" and path == "/v1/sync/pull" and case.query:
        wait = str(case.query.get("wait", ""))
        if wait.isdigit() and 1 < int(wait) <= 60:
            case.query["wait"] = 1
EOF

# 413 (too large, too many items) is a rejection too; 416 answers a well-formed Range that this file
# cannot satisfy, which depends on the stored file, not on the request's validity.
cat >"$WORK/schemathesis.toml" <<'EOF'
[checks.negative_data_rejection]
expected-statuses = ["400", "401", "403", "404", "405", "406", "409", "413", "415", "422", "428", "429", "5xx"]

[checks.positive_data_acceptance]
expected-statuses = ["2xx", "3xx", "401", "403", "404", "409", "416", "429", "5xx"]
EOF

seed_args=()
[[ -n "${SEED:-}" ]] && seed_args=(--seed "$SEED")
START=$SECONDS
# run_schemathesis LABEL SECONDS SCHEMA_LOCATION [more schemathesis options...]
run_schemathesis() {
    local label=$1 budget=$2 location=$3 st
    shift 3
    echo "== schemathesis: $label"
    set +e
    (
        cd "$WORK"
        PYTHONPATH="$WORK/hooks${PYTHONPATH:+:$PYTHONPATH}" SCHEMATHESIS_HOOKS=tnotes_hooks \
            timeout --signal=INT --kill-after=15 "$budget" \
            schemathesis --config-file "$WORK/schemathesis.toml" run "$location" \
            --url "$URL" \
            -H "Authorization: Bearer $TOKEN" \
            --max-examples "$MAX_EXAMPLES" \
            --continue-on-failure \
            --request-timeout 10 \
            --generation-database none \
            --output-truncate true \
            --no-color \
            "${seed_args[@]}" "$@"
    )
    st=$?
    set -e
    if [[ $st -eq 124 || $st -eq 130 ]]; then
        echo "check-openapi: schemathesis ($label) did not finish within $budget s" >&2
    fi
    return $st
}

echo "schemathesis $(python3 -c 'import schemathesis; print(schemathesis.__version__)')"
# The document accepts any JSON value as a pushed change (the server answers a bad one `rejected`, not
# 400), so generators seldom build a real Change from it. A first, positive-only pass pushes changes
# generated from the strict Change schema: the merge path is exercised, and the main pass then pulls
# and lists (get-sermons) what it stored.
python3 - "$WORK/openapi.json" "$WORK/openapi-strict-push.json" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
changes = doc["components"]["schemas"]["PushRequest"]["properties"]["changes"]
changes["items"] = {"$ref": "#/components/schemas/Change"}
json.dump(doc, open(sys.argv[2], "w"))
EOF
run_schemathesis "generated changes through push (positive)" $((ST_TIMEOUT / 3)) "$WORK/openapi-strict-push.json" \
    --checks all --exclude-checks unsupported_method --mode positive --include-path /v1/sync/push \
    --phases fuzzing || status=1

left=$((ST_TIMEOUT - (SECONDS - START)))
(( left < 60 )) && left=60
run_schemathesis "every route, every check" "$left" "$LOCATION" --checks all || status=1

if grep -q "request failed" "$WORK/server.log"; then
    echo "check-openapi: the server logged failed requests:" >&2
    grep "request failed" "$WORK/server.log" | tail -n 20 >&2
    status=1
fi
if ! kill -0 "$SERVER_PID" 2>/dev/null; then
    echo "check-openapi: the server died during the run:" >&2
    tail -n 50 "$WORK/server.log" >&2
    status=1
fi
if [[ $status -eq 0 ]]; then echo "check-openapi: OK"; else echo "check-openapi: FAILED" >&2; fi
exit $status
