#!/usr/bin/env bash
# Smoke test of the compiled binary: build dist/formsvc, copy it ALONE into an empty folder that also
# holds a stray .env and bunfig.toml (which must be ignored), and drive it as an operator would.
# Only 127.0.0.1 is contacted; only the processes started here are stopped.
#
# To add a check: write a `step_<name>` function below and add <name> to STEPS (before `stop` if it
# needs the running server: $BASE_URL, $KEY and $FORM_ID are set by then; use http_get/http_post).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PATH="$ROOT/node_modules/.bin:$PATH"

# The binary's settings must come from this script alone, not from whoever runs it.
while IFS= read -r name; do unset "$name"; done < <(compgen -e | grep '^FORMSVC_' || true)

WORK="$(mktemp -d "${TMPDIR:-/tmp}/formsvc-smoke.XXXXXX")"
RUN_DIR="$WORK/run"         # the binary's folder and working directory: nothing but it and the stray files
BIN="$RUN_DIR/formsvc"
SERVER_PID=""
SERVER_LOG="$WORK/serve.log"

cleanup() {
  if [[ -n "$SERVER_PID" ]] && kill -0 "$SERVER_PID" 2>/dev/null; then kill -KILL "$SERVER_PID" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT

# --- helpers ----------------------------------------------------------------------------------------
fail() {
  echo "smoke: FAILED: $*" >&2
  if [[ -s "$SERVER_LOG" ]]; then echo "--- server log (last 40 lines) ---" >&2; tail -n 40 "$SERVER_LOG" >&2; fi
  exit 1
}

# Runs the binary from its own folder (so the stray .env/bunfig.toml are "right there"); stdout only.
formsvc() { (cd "$RUN_DIR" && "$BIN" "$@"); }

# json_get EXPR < json: prints the value of a JS expression over `j` (the parsed input); node comes with npm.
json_get() { node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const j=JSON.parse(s);const v=eval(process.argv[1]);process.stdout.write(typeof v==="string"?v:JSON.stringify(v))})' "$1"; }

# http_get PATH [curl args...]: sets HTTP_STATUS and HTTP_BODY. Always against $BASE_URL (127.0.0.1).
http_get() {
  local path="$1"; shift
  HTTP_BODY="$(curl -sS --max-time 10 -o - -w '\n%{http_code}' "$@" "$BASE_URL$path")" || fail "GET $path: curl failed"
  HTTP_STATUS="${HTTP_BODY##*$'\n'}"
  HTTP_BODY="${HTTP_BODY%$'\n'*}"
}

# http_post PATH JSON [curl args...]: like http_get, with a JSON body.
http_post() {
  local path="$1" body="$2"; shift 2
  http_get "$path" -X POST -H "Content-Type: application/json" --data-binary "$body" "$@"
}

expect_status() { [[ "$HTTP_STATUS" == "$1" ]] || fail "$2: expected HTTP $1, got $HTTP_STATUS: $HTTP_BODY"; }

# --- steps ------------------------------------------------------------------------------------------
step_build() {
  (cd "$ROOT" && bun build.ts) || fail "build"
  [[ -x "$ROOT/dist/formsvc" ]] || fail "build produced no dist/formsvc"
}

step_no_build_paths() {
  # The binary must not lean on the checkout it was built from: a dependency that reads a file at
  # __dirname (which Bun writes in as the build machine's folder) works here and nowhere else.
  local root_re found
  root_re="$(printf '%s' "$ROOT" | sed 's/[][\.*^$+?(){}|]/\\&/g')"
  found="$(LC_ALL=C grep -aoE "$root_re/(node_modules|src)/[A-Za-z0-9@._/-]*" "$ROOT/dist/formsvc" | sort -u | head -n 5 | tr '\n' ' ')" || true
  [[ -z "$found" ]] || fail "dist/formsvc names folders of this checkout (see build.ts): $found"
}

step_stage() {
  mkdir -p "$RUN_DIR"
  cp "$ROOT/dist/formsvc" "$BIN"
  # Loaded, this .env would make every command fail validation (and serve on port 1).
  printf 'FORMSVC_PORT=1\nFORMSVC_RATE_LIMIT=not-a-number\n' > "$RUN_DIR/.env"
  # Loaded, this bunfig.toml would run the preload, which refuses to let the binary start.
  printf 'preload = ["./bunfig-preload.js"]\n' > "$RUN_DIR/bunfig.toml"
  printf 'console.error("bunfig.toml was loaded"); process.exit(86);\n' > "$RUN_DIR/bunfig-preload.js"
}

step_version() {
  local out want commit
  out="$(formsvc --version)" || fail "--version exited non-zero"
  want="$(node -p 'require(process.argv[1]).version' "$ROOT/package.json")"
  # The build commit too, where the checkout is a git one.
  commit="$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null)" && want="$want+$commit"
  [[ "$out" == "$want" || "$out" == "$want.dirty" ]] || fail "--version printed '$out', expected $want"
  echo "  version $out"
}

step_service_print() {
  # The unit and the settings are inside the binary: nothing from deploy/ is beside it.
  local out
  out="$(formsvc service install --print)" || fail "service install --print"
  grep -qx 'ExecStart=/usr/local/bin/formsvc serve' <<< "$out" || fail "service install --print shows no unit: $out"
  grep -qx '#FORMSVC_PORT=3000' <<< "$out" || fail "service install --print shows no settings"
}

step_ignores_stray_files() {
  local port
  port="$(formsvc config --json | json_get 'j.find(s=>s.key==="port").value')" || fail "config --json (a stray .env or bunfig.toml was loaded?)"
  [[ "$port" == "3000" ]] || fail "effective port is $port: the stray .env was loaded"
}

step_create_key() {
  KEY="$(formsvc keys create --owner smoke@example.com --name smoke --json | json_get 'j.key')" || fail "keys create"
  [[ "$KEY" == fsk_* ]] || fail "keys create printed no fsk_ key"
}

step_create_form() {
  FORM_ID="$(formsvc forms create --owner smoke@example.com --name "Smoke" --type contact --json | json_get 'j.id')" || fail "forms create"
  [[ -n "$FORM_ID" ]] || fail "forms create printed no id"
}

step_serve() {
  # Port 0: the kernel picks a free port, and serve prints the URL it got. No race with other tests.
  # Behind a (pretend) proxy: the submit step sends X-Forwarded-For with a public address.
  (cd "$RUN_DIR" && FORMSVC_TRUST_PROXY=true exec "$BIN" serve --host 127.0.0.1 --port 0) > "$SERVER_LOG" 2>&1 &
  SERVER_PID=$!
  for _ in $(seq 100); do
    BASE_URL="$(grep -o 'listening on http://127\.0\.0\.1:[0-9]*' "$SERVER_LOG" | head -n 1 | sed 's/^listening on //')" || true
    [[ -n "$BASE_URL" ]] && break
    kill -0 "$SERVER_PID" 2>/dev/null || fail "serve exited before listening"
    sleep 0.1
  done
  [[ -n "$BASE_URL" ]] || fail "serve did not print its URL within 10 s"
  echo "  serving on $BASE_URL (pid $SERVER_PID)"
}

step_get_form() {
  http_get "/api/v1/forms/$FORM_ID" -H "X-API-Key: $KEY"
  expect_status 200 "GET /forms/{id}"
  [[ "$(json_get 'j.id' <<< "$HTTP_BODY")" == "$FORM_ID" ]] || fail "GET /forms/{id} answered another form: $HTTP_BODY"
}

step_init() {
  local out
  out="$(formsvc init --owner first-run@example.com --json)" || fail "init"
  [[ "$(json_get 'j.key.key' <<< "$out")" == fsk_* ]] || fail "init printed no key: $out"
  [[ "$(json_get 'j.form.formType' <<< "$out")" == contact ]] || fail "init made no sample contact form: $out"
}

step_submit_country() {
  # 81.2.69.142 is in the United Kingdom: a GB country proves the geo data is inside the binary.
  http_post "/api/v1/forms/submit" "{\"formId\":\"$FORM_ID\",\"data\":{\"email\":\"Ada@Example.com\",\"message\":\"hi\"}}" \
    -H "X-API-Key: $KEY" -H "X-Forwarded-For: 81.2.69.142" -H "User-Agent: Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1"
  expect_status 200 "POST /forms/submit"
  SUBMISSION_ID="$(json_get 'j.submissionId' <<< "$HTTP_BODY")"
  http_get "/api/v1/forms/$FORM_ID/submissions" -H "X-API-Key: $KEY"
  expect_status 200 "GET /forms/{id}/submissions"
  local meta
  meta="$(json_get 'j.submissions[0].data._meta' <<< "$HTTP_BODY")"
  [[ "$(json_get 'j.country' <<< "$meta")" == GB ]] || fail "stored country is not GB: $meta"
  [[ "$(json_get 'j.device' <<< "$meta")" == mobile ]] || fail "stored device is not mobile: $meta"
}

step_docs_health_metrics() {
  http_get "/api/v1/openapi.json"
  expect_status 200 "GET /api/v1/openapi.json"
  [[ "$(json_get 'Object.keys(j.paths).includes("/api/v1/forms/submit")' <<< "$HTTP_BODY")" == true ]] || fail "openapi.json lacks /forms/submit"
  http_get "/healthz"
  expect_status 200 "GET /healthz"
  http_get "/metrics"
  expect_status 200 "GET /metrics"
  grep -q '^formsvc_submissions_stored_total 1$' <<< "$HTTP_BODY" || fail "metrics do not count the stored submission"
}

step_outbound() {
  # Mustache (templates), ipaddr.js (address checks) and node:http (deliveries) are loaded inside the binary.
  local out
  out="$(formsvc forms update "$FORM_ID" --email-notifications --autoresponse-subject "Thanks {{name}}" --autoresponse-text "Hi {{name}}" --json)" || fail "forms update --autoresponse-*"
  [[ "$(json_get 'j.autoresponse.enabled' <<< "$out")" == true ]] || fail "the autoresponse is not on: $out"
  formsvc forms update "$FORM_ID" --autoresponse-text "{{#open}}" --json > /dev/null 2>&1 && fail "a broken template was accepted"
  formsvc webhooks add "$FORM_ID" --url "$BASE_URL/hook" --json > /dev/null 2>&1 && fail "a loopback webhook was accepted without FORMSVC_WEBHOOK_ALLOW_PRIVATE"
  local hook
  hook="$(cd "$RUN_DIR" && FORMSVC_WEBHOOK_ALLOW_PRIVATE=true "$BIN" webhooks add "$FORM_ID" --url "$BASE_URL/hook" --json | json_get 'j.id')" || fail "webhooks add"
  # formsvc's own server answers the test event's POST with 404: a real HTTP exchange, reported as such.
  out="$(cd "$RUN_DIR" && FORMSVC_WEBHOOK_ALLOW_PRIVATE=true "$BIN" webhooks test "$hook" 2>&1)" && fail "webhooks test did not report the 404"
  grep -q "HTTP 404" <<< "$out" || fail "webhooks test did not reach the server: $out"
  formsvc webhooks remove "$hook" > /dev/null || fail "webhooks remove"
}

step_docs_page() {
  # /docs must work offline: the page and Swagger UI's files come from inside the binary, nothing from a CDN.
  local headers="$WORK/docs-headers" asset type size renderer=""
  http_get "/docs" -D "$headers"
  expect_status 200 "GET /docs"
  grep -qi '^content-type: text/html' "$headers" || fail "GET /docs is not text/html"
  grep -qi "^content-security-policy: default-src 'none'; script-src 'self';" "$headers" || fail "GET /docs lacks its same-origin Content-Security-Policy"
  grep -q '<a href="/api/v1/openapi.json">' <<< "$HTTP_BODY" || fail "GET /docs does not link the OpenAPI document"
  ! grep -qE '(src|href)="(https?:)?//' <<< "$HTTP_BODY" || fail "GET /docs names another host"
  for asset in $(grep -oE '/docs/assets/[^"]+\.(js|css)' <<< "$HTTP_BODY"); do
    read -r HTTP_STATUS size type < <(curl -sS --max-time 10 -o /dev/null -w '%{http_code} %{size_download} %{content_type}\n' "$BASE_URL$asset") || fail "GET $asset: curl failed"
    expect_status 200 "GET $asset"
    case "$asset" in
      *.js) [[ "$type" == text/javascript* ]] || fail "GET $asset: content type $type" ;;
      *.css) [[ "$type" == text/css* ]] || fail "GET $asset: content type $type" ;;
    esac
    if [[ "$asset" == */swagger-ui-bundle.js ]]; then
      (( size > 1000000 )) || fail "GET $asset: only $size bytes, the renderer is not inside the binary"
      renderer="$asset ($size bytes)"
    fi
  done
  [[ -n "$renderer" ]] || fail "GET /docs loads no swagger-ui-bundle.js"
  echo "  renderer $renderer"
}

step_widget() {
  # The ALTCHA widget a public form loads comes from the binary too.
  local size type
  read -r HTTP_STATUS size type < <(curl -sS --max-time 10 -o /dev/null -w '%{http_code} %{size_download} %{content_type}\n' "$BASE_URL/widget/altcha.js") || fail "GET /widget/altcha.js: curl failed"
  expect_status 200 "GET /widget/altcha.js"
  [[ "$type" == text/javascript* ]] || fail "GET /widget/altcha.js: content type $type"
  (( size > 50000 )) || fail "GET /widget/altcha.js: only $size bytes, the widget is not inside the binary"
  echo "  widget /widget/altcha.js ($size bytes)"
}

step_dashboard() {
  # The dashboard's page and its bundle come from the binary: no bundler, no node_modules, no CDN.
  local headers="$WORK/dashboard-headers" asset size type js=0
  http_get "/dashboard" -D "$headers"
  expect_status 200 "GET /dashboard"
  grep -qi "^content-security-policy: default-src 'none'; script-src 'self';" "$headers" || fail "GET /dashboard lacks its same-origin Content-Security-Policy"
  grep -qi "frame-ancestors 'none'" "$headers" || fail "GET /dashboard may be framed"
  ! grep -qE '(src|href)="(https?:)?//' <<< "$HTTP_BODY" || fail "GET /dashboard names another host"
  for asset in $(grep -oE '/dashboard/assets/[^"]+\.(js|css)' <<< "$HTTP_BODY"); do
    read -r HTTP_STATUS size type < <(curl -sS --max-time 10 -H 'Accept-Encoding: gzip' -o /dev/null -w '%{http_code} %{size_download} %{content_type}\n' "$BASE_URL$asset") || fail "GET $asset: curl failed"
    expect_status 200 "GET $asset"
    [[ "$asset" == *.js ]] && js=$((js + size))
  done
  (( js > 10000 )) || fail "GET /dashboard loads only $js bytes of script: the app is not inside the binary"
  (( js <= 153600 )) || fail "the dashboard's JavaScript is $js bytes gzipped, over its 150 KB budget"
  echo "  dashboard JavaScript $js bytes gzipped"
}

step_nothing_lost() {
  local count
  count="$(formsvc forms show "$FORM_ID" --json | json_get 'j.submissionCount')" || fail "forms show after stop"
  [[ "$count" == 1 ]] || fail "the acknowledged submission $SUBMISSION_ID is missing after shutdown (count $count)"
}

step_backup_restore() {
  # A backup is made by the binary running itself again (the snapshot in a process of its own).
  local made name restored
  made="$(formsvc backups create --json)" || fail "backups create"
  name="$(json_get 'j.name' <<< "$made")"
  [[ "$name" == formsvc-*.db.zst ]] || fail "backups create made no named backup: $made"
  restored="$(formsvc restore "$name" --db "$WORK/restored/formsvc.db" --json)" || fail "restore $name"
  [[ "$(json_get 'j.integrity' <<< "$restored")" == ok ]] || fail "restore did not check the copy: $restored"
}

step_stop() {
  kill -TERM "$SERVER_PID"
  for _ in $(seq 150); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$SERVER_PID" 2>/dev/null && fail "serve still running 15 s after SIGTERM"
  local code=0
  wait "$SERVER_PID" || code=$?
  SERVER_PID=""
  [[ "$code" == 0 ]] || fail "serve exited $code after SIGTERM, expected 0"
}

STEPS=(build no_build_paths stage version service_print ignores_stray_files init create_key create_form serve get_form submit_country docs_health_metrics outbound docs_page widget dashboard backup_restore stop nothing_lost)

for step in "${STEPS[@]}"; do
  echo "smoke: $step"
  "step_$step"
done
echo "smoke: binary OK ($(du -h "$ROOT/dist/formsvc" | cut -f1))"
