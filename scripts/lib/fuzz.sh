# shellcheck shell=bash
# The contract-fuzzing stage of scripts/fuzz.sh (and so of scripts/test.sh): schemathesis against every service the
# launcher starts, each with its own OpenAPI document. Requires lib/common.sh; run from the repository root.
#
#   waypoint_fuzz_install           # the pinned schemathesis, in a virtualenv (only when missing)
#   waypoint_fuzz_cleanup_on_exit   # first, so that a half-started platform is stopped too
#   waypoint_fuzz_start_platform    # `waypoint up --demo` on free loopback ports in a temporary directory
#   waypoint_fuzz_all               # every service × every identity; non-zero on any finding
#
# See docs/contract-fuzzing.md.

# The pinned tool; scripts/lib/fuzz/requirements.txt pins everything it brings along.
WAYPOINT_FUZZ_SCHEMATHESIS_VERSION=4.32.5
# What every response is checked for (docs/contract-fuzzing.md says why the others are left out).
WAYPOINT_FUZZ_CHECKS=${WAYPOINT_FUZZ_CHECKS:-not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance,response_headers_conformance,missing_required_header,use_after_free,ensure_resource_availability,ignored_auth}
# The administrator the stage creates with `auth create-admin` before the platform first starts.
WAYPOINT_FUZZ_ADMIN_EMAIL=fuzz-admin@example.com
WAYPOINT_FUZZ_PASSWORD=Fuzzing-Waypoint-2026

WAYPOINT_FUZZ_DIR=""
WAYPOINT_FUZZ_LAUNCHER_PID=""
WAYPOINT_FUZZ_VENV=""

# Python with schemathesis: the virtualenv under WAYPOINT_FUZZ_CACHE (default .cache/fuzz, ignored by git), made and
# filled from the pinned requirements only when it does not hold the pinned version yet.
waypoint_fuzz_install() {
    local cache="${WAYPOINT_FUZZ_CACHE:-$(pwd)/.cache/fuzz}"
    WAYPOINT_FUZZ_VENV="$cache/schemathesis-$WAYPOINT_FUZZ_SCHEMATHESIS_VERSION"
    if [[ "$("$WAYPOINT_FUZZ_VENV/bin/schemathesis" --version 2>/dev/null)" == *" $WAYPOINT_FUZZ_SCHEMATHESIS_VERSION" ]]; then
        return 0
    fi
    waypoint_log "installing schemathesis $WAYPOINT_FUZZ_SCHEMATHESIS_VERSION into $WAYPOINT_FUZZ_VENV"
    rm -rf "$WAYPOINT_FUZZ_VENV"
    mkdir -p "$cache"
    python3 -m venv "$WAYPOINT_FUZZ_VENV" || waypoint_die "python3 -m venv failed (is python3-venv installed?)"
    "$WAYPOINT_FUZZ_VENV/bin/pip" install --quiet --disable-pip-version-check --require-virtualenv \
        -r scripts/lib/fuzz/requirements.txt || { rm -rf "$WAYPOINT_FUZZ_VENV"; waypoint_die "installing schemathesis failed"; }
    [[ "$("$WAYPOINT_FUZZ_VENV/bin/schemathesis" --version)" == *" $WAYPOINT_FUZZ_SCHEMATHESIS_VERSION" ]] ||
        waypoint_die "scripts/lib/fuzz/requirements.txt does not pin schemathesis $WAYPOINT_FUZZ_SCHEMATHESIS_VERSION"
}

# Stop the platform and remove the temporary directory when the shell exits, however it exits.
waypoint_fuzz_cleanup_on_exit() {
    trap waypoint_fuzz_stop_platform EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
}

# From the launcher's state file: a field (e.g. `phase`), `services` (name and URL of each ready one) or `pids`.
_waypoint_fuzz_state() {
    python3 - "$WAYPOINT_FUZZ_DIR/data/run/launcher.json" "$1" <<'PY' 2>/dev/null
import json, sys
state = json.load(open(sys.argv[1]))
if sys.argv[2] == "services":
    for service in state["services"]:
        if service["state"] == "ready":
            print(service["name"], service["url"])
elif sys.argv[2] == "pids":
    print(" ".join(str(s["pid"]) for s in state["services"] if s.get("pid")))
else:
    print(state[sys.argv[2]])
PY
}

# SIGINT to the launcher (it stops every service gracefully and exits), SIGKILL to whatever is left after 60 s.
waypoint_fuzz_stop_platform() {
    local status=$? pids="" waited
    if [[ -n "$WAYPOINT_FUZZ_LAUNCHER_PID" ]] && kill -0 "$WAYPOINT_FUZZ_LAUNCHER_PID" 2>/dev/null; then
        waypoint_log "stopping the platform"
        pids=$(_waypoint_fuzz_state pids || true)
        kill -INT "$WAYPOINT_FUZZ_LAUNCHER_PID" 2>/dev/null || true
        for ((waited = 0; waited < 600; waited++)); do
            kill -0 "$WAYPOINT_FUZZ_LAUNCHER_PID" 2>/dev/null || break
            sleep 0.1
        done
        # shellcheck disable=SC2086 # a list of pids
        kill -KILL "$WAYPOINT_FUZZ_LAUNCHER_PID" $pids 2>/dev/null || true
        wait "$WAYPOINT_FUZZ_LAUNCHER_PID" 2>/dev/null || true
    fi
    WAYPOINT_FUZZ_LAUNCHER_PID=""
    if [[ -n "$WAYPOINT_FUZZ_DIR" && -d "$WAYPOINT_FUZZ_DIR" ]]; then
        if [[ "${WAYPOINT_FUZZ_KEEP:-}" == 1 ]]; then
            waypoint_log "kept $WAYPOINT_FUZZ_DIR (WAYPOINT_FUZZ_KEEP=1)"
        else
            rm -rf "$WAYPOINT_FUZZ_DIR"
        fi
    fi
    WAYPOINT_FUZZ_DIR=""
    return "$status"
}

# The first of seven consecutive free loopback ports (the launcher's base port and its six services), at random.
_waypoint_fuzz_free_base_port() {
    # Below the kernel's ephemeral range (32768–60999 by default): a port there may be the local end of an outgoing
    # connection (nothing listens, so a connect probe calls it free, yet a service's bind fails). Each candidate is
    # probed by binding it, the way the services will.
    python3 - <<'PY' || waypoint_die "no seven consecutive free ports found"
import random, socket, sys
try:
    low = int(open("/proc/sys/net/ipv4/ip_local_port_range").read().split()[0])
except (OSError, ValueError, IndexError):
    low = 32768
top = max(low - 8, 10000)
def free(port):
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True
for _ in range(200):
    base = random.randint(min(20000, top - 1000), top)
    if all(free(base + offset) for offset in range(7)):
        print(base)
        sys.exit(0)
sys.exit(1)
PY
}

# Starts `waypoint up --demo` in a temporary directory and waits until every service is ready and the demo is seeded.
# The administrator is created first, with the secrets the launcher will then find in its data directory.
waypoint_fuzz_start_platform() {
    local bin base waited
    bin=$(swift build --show-bin-path)
    [[ -x "$bin/waypoint" ]] || waypoint_die "$bin/waypoint is not built (run swift build first)"
    WAYPOINT_FUZZ_DIR=$(mktemp -d "${TMPDIR:-/tmp}/waypoint-fuzz.XXXXXX")
    mkdir -p "$WAYPOINT_FUZZ_DIR/data"
    # The secrets `waypoint up` would generate (LauncherSecrets), written first so that `auth create-admin` seals the
    # administrator's personal data with the key the running services use.
    python3 - "$WAYPOINT_FUZZ_DIR/data/launcher-secrets.json" <<'PY'
import base64, json, os, secrets, sys
token = base64.urlsafe_b64encode(secrets.token_bytes(32)).decode().rstrip("=")
key = base64.b64encode(secrets.token_bytes(32)).decode()
with open(os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT, 0o600), "w") as handle:
    json.dump({"internalToken": token, "personalDataKey": key}, handle)
PY
    # Every start below leaves the inherited WAYPOINT_* settings out (the test environment's included) and sets its own.
    # bcrypt cost 10 (the minimum) keeps the many fuzzed registrations and logins cheap; nothing else depends on it.
    local -a environment
    mapfile -t environment < <(env | grep -E '^WAYPOINT_' | cut -d= -f1 | sed 's/^/-u/')
    environment+=(WAYPOINT_AUTH_BCRYPT_COST=10 WAYPOINT_LOG_LEVEL=warning)
    waypoint_log "creating the administrator $WAYPOINT_FUZZ_ADMIN_EMAIL"
    WAYPOINT_FUZZ_INTERNAL_TOKEN=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["internalToken"])' \
        "$WAYPOINT_FUZZ_DIR/data/launcher-secrets.json")
    local key
    key=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["personalDataKey"])' "$WAYPOINT_FUZZ_DIR/data/launcher-secrets.json")
    env "${environment[@]}" WAYPOINT_DATA_DIR="$WAYPOINT_FUZZ_DIR/data" WAYPOINT_PERSONAL_DATA_KEY="$key" \
        WAYPOINT_INTERNAL_TOKEN="$WAYPOINT_FUZZ_INTERNAL_TOKEN" WAYPOINT_ADMIN_PASSWORD="$WAYPOINT_FUZZ_PASSWORD" \
        "$bin/auth" create-admin --username fuzzadmin --email "$WAYPOINT_FUZZ_ADMIN_EMAIL" \
        >"$WAYPOINT_FUZZ_DIR/create-admin.log" 2>&1 ||
        { cat "$WAYPOINT_FUZZ_DIR/create-admin.log" >&2; waypoint_die "auth create-admin failed"; }

    # A port can still be taken between the probe and the bind (another test's outgoing connection): the launcher then
    # exits with "port in use" before starting anything, and the platform is started again on another range.
    local attempt
    for ((attempt = 1; ; attempt++)); do
        base=$(_waypoint_fuzz_free_base_port)
        waypoint_log "starting the platform on 127.0.0.1:$base-$((base + 6)) in $WAYPOINT_FUZZ_DIR"
        env "${environment[@]}" "$bin/waypoint" up --no-build --bin-path "$bin" --data-dir "$WAYPOINT_FUZZ_DIR/data" \
            --base-port "$base" --demo --log-format json --drain-timeout 5 --ready-timeout 240 \
            >"$WAYPOINT_FUZZ_DIR/platform.log" 2>&1 </dev/null &
        WAYPOINT_FUZZ_LAUNCHER_PID=$!
        for ((waited = 0; waited < 50; waited++)); do
            kill -0 "$WAYPOINT_FUZZ_LAUNCHER_PID" 2>/dev/null || break
            sleep 0.1
        done
        if ! kill -0 "$WAYPOINT_FUZZ_LAUNCHER_PID" 2>/dev/null && ((attempt < 5)) &&
            grep -q 'port in use' "$WAYPOINT_FUZZ_DIR/platform.log"; then
            wait "$WAYPOINT_FUZZ_LAUNCHER_PID" 2>/dev/null || true
            waypoint_log "$(grep -m1 'port in use' "$WAYPOINT_FUZZ_DIR/platform.log") — trying other ports"
            continue
        fi
        break
    done
    for ((waited = 0; ; waited++)); do
        if ! kill -0 "$WAYPOINT_FUZZ_LAUNCHER_PID" 2>/dev/null; then
            tail -n 40 "$WAYPOINT_FUZZ_DIR/platform.log" >&2
            waypoint_die "the launcher exited before the platform was ready"
        fi
        if grep -q 'demo data not seeded' "$WAYPOINT_FUZZ_DIR/platform.log"; then
            tail -n 40 "$WAYPOINT_FUZZ_DIR/platform.log" >&2
            waypoint_die "the demo data was not seeded"
        fi
        [[ "$(_waypoint_fuzz_state phase || true)" == running ]] &&
            grep -qE 'demo: [0-9]+ tours published' "$WAYPOINT_FUZZ_DIR/platform.log" && break
        ((waited < 3000)) || { tail -n 40 "$WAYPOINT_FUZZ_DIR/platform.log" >&2; waypoint_die "the platform was not ready within 300 s"; }
        sleep 0.1
    done
}

# A JSON request to the platform; prints the response body, fails on a status other than $4.
_waypoint_fuzz_post() {
    local url=$1 body=$2 what=$3 expected=$4 response status
    response=$(curl -sS -X POST "$url" -H 'Content-Type: application/json' -d "$body" -w '\n%{http_code}') ||
        waypoint_die "$what: no answer from $url"
    status=${response##*$'\n'}
    [[ "$status" == "$expected" ]] || waypoint_die "$what: $status from $url: ${response%$'\n'*}"
    printf '%s' "${response%$'\n'*}"
}

# An access token for `identity` (traveller, guide or admin), from auth at $1: each run gets a fresh account (a run may
# erase its own account or end its session); the administrator is the one made before the start.
_waypoint_fuzz_token() {
    local auth=$1 identity=$2 email
    if [[ $identity == admin ]]; then
        email=$WAYPOINT_FUZZ_ADMIN_EMAIL
    else
        email="fuzz-$identity-$RANDOM$RANDOM@example.com"
        _waypoint_fuzz_post "$auth/v1/auth/register" \
            "{\"username\":\"fz${identity:0:1}$RANDOM$RANDOM\",\"email\":\"$email\",\"password\":\"$WAYPOINT_FUZZ_PASSWORD\",\"role\":\"$identity\"}" \
            "registering a $identity" 201 >/dev/null
    fi
    _waypoint_fuzz_post "$auth/v1/auth/login" \
        "{\"email\":\"$email\",\"password\":\"$WAYPOINT_FUZZ_PASSWORD\",\"deviceId\":\"fuzz\"}" "logging in as $identity" 200 |
        python3 -c 'import json,sys; print(json.load(sys.stdin)["accessToken"])'
}

# Services/<Name>/Sources/openapi.yaml of a launcher service name: tour-management → TourManagement.
_waypoint_fuzz_document() {
    local name=$1 part camel=""
    local -a parts
    IFS=- read -ra parts <<<"$name"
    for part in "${parts[@]}"; do camel+="${part^}"; done
    echo "Services/$camel/Sources/openapi.yaml"
}

# The schemathesis configurations (scripts/lib/fuzz/*.toml) in the temporary directory, beside published-tours.dict:
# the ids of the tours tour-management lists (the demo's), in libFuzzer's dictionary format.
_waypoint_fuzz_configure() {
    local tours
    mkdir -p "$WAYPOINT_FUZZ_DIR/config"
    cp scripts/lib/fuzz/anonymous.toml scripts/lib/fuzz/authenticated.toml "$WAYPOINT_FUZZ_DIR/config/"
    tours=$(_waypoint_fuzz_state services | awk '$1 == "tour-management" { print $2 }')
    [[ -n "$tours" ]] || waypoint_die "tour-management is not running"
    curl -sS --fail "$tours/v1/tours" | python3 -c '
import json, sys
ids = [tour["id"] for tour in json.load(sys.stdin)["tours"]]
if not ids:
    sys.exit("tour-management lists no tours: the demo data is missing")
print("\n".join(f"\"{id}\"" for id in ids))' >"$WAYPOINT_FUZZ_DIR/config/published-tours.dict" ||
        waypoint_die "could not list the published tours"
}

# One schemathesis run of service $1 at URL $2 with document $3 as identity $4 (anonymous, traveller, guide, admin),
# with token $5 (empty when anonymous) and extra schemathesis arguments after it. Returns non-zero on any finding (or
# when it takes longer than WAYPOINT_FUZZ_RUN_TIMEOUT).
_waypoint_fuzz_schemathesis() {
    local service=$1 url=$2 document=$3 identity=$4 token=$5 status=0 config=anonymous
    shift 5
    [[ $identity == anonymous ]] || config=authenticated
    WAYPOINT_FUZZ_RUNS=$((WAYPOINT_FUZZ_RUNS + 1))
    WAYPOINT_FUZZ_TOKEN=$token timeout --kill-after=10 "${WAYPOINT_FUZZ_RUN_TIMEOUT:-240}" \
        "$WAYPOINT_FUZZ_VENV/bin/schemathesis" --config-file "$WAYPOINT_FUZZ_DIR/config/$config.toml" run "$document" \
        --url "$url" --checks "$WAYPOINT_FUZZ_CHECKS" --seed "${WAYPOINT_FUZZ_SEED:-20251116}" \
        --max-examples "${WAYPOINT_FUZZ_EXAMPLES:-25}" --generation-database none --workers 1 --request-timeout 20 \
        --phases examples,coverage,fuzzing --no-color --suppress-health-check all --warnings off \
        --report junit --report-junit-path "$WAYPOINT_FUZZ_DIR/reports/$service-$identity-$WAYPOINT_FUZZ_RUNS.xml" \
        "$@" || status=$?
    if [[ $status == 124 || $status == 137 ]]; then
        printf 'error: fuzzing %s as %s took longer than %s s (WAYPOINT_FUZZ_RUN_TIMEOUT)\n' "$service" "$identity" \
            "${WAYPOINT_FUZZ_RUN_TIMEOUT:-240}" >&2
    fi
    return "$status"
}

# Every started service (or WAYPOINT_FUZZ_SERVICES) × every identity (or WAYPOINT_FUZZ_IDENTITIES), each run with a
# fresh account. Streams are left out of the authenticated runs, and the operations that end the session
# (x-ends-session) are left out of them too and called at the end, after every service's runs, each with its own
# account (scripts/lib/fuzz/document.py). Goes on after a failing run so that one stage shows every finding; non-zero
# when any run failed.
waypoint_fuzz_all() {
    local name url document identity kind method route started token entry
    local -a identities failed=() excluded deferred=()
    IFS=, read -ra identities <<<"${WAYPOINT_FUZZ_IDENTITIES:-anonymous,traveller,guide,admin}"
    mkdir -p "$WAYPOINT_FUZZ_DIR/reports"
    WAYPOINT_FUZZ_RUNS=0
    WAYPOINT_FUZZ_AUTH_URL=$(_waypoint_fuzz_state services | awk '$1 == "auth" { print $2 }')
    [[ -n "$WAYPOINT_FUZZ_AUTH_URL" ]] || waypoint_die "auth is not running"
    export WAYPOINT_FUZZ_INTERNAL_TOKEN
    _waypoint_fuzz_configure
    started=$(date +%s)
    while read -r name url; do
        if [[ -n "${WAYPOINT_FUZZ_SERVICES:-}" && ",$WAYPOINT_FUZZ_SERVICES," != *",$name,"* ]]; then
            continue
        fi
        document=$(_waypoint_fuzz_document "$name")
        if [[ ! -f "$document" ]]; then
            printf 'error: %s runs but has no %s\n' "$name" "$document" >&2
            failed+=("$name (no document)")
            continue
        fi
        for identity in "${identities[@]}"; do
            waypoint_log "fuzzing $name ($document) at $url as $identity"
            if [[ $identity == anonymous ]]; then
                _waypoint_fuzz_schemathesis "$name" "$url" "$document" anonymous "" || failed+=("$name as anonymous")
                continue
            fi
            excluded=()
            while read -r kind method route; do
                excluded+=(--exclude-name "$method $route")
                [[ $kind == ends-session ]] && deferred+=("$name $url $document $identity $method $route")
            done < <("$WAYPOINT_FUZZ_VENV/bin/python" scripts/lib/fuzz/document.py "$document")
            token=$(_waypoint_fuzz_token "$WAYPOINT_FUZZ_AUTH_URL" "$identity")
            _waypoint_fuzz_schemathesis "$name" "$url" "$document" "$identity" "$token" "${excluded[@]}" ||
                failed+=("$name as $identity")
        done
    done < <(_waypoint_fuzz_state services)
    # Every account first (the administrator is one account: erasing it must come after its last login), then the runs.
    local -a tokens=()
    for entry in "${deferred[@]}"; do
        read -r name url document identity method route <<<"$entry"
        tokens+=("$(_waypoint_fuzz_token "$WAYPOINT_FUZZ_AUTH_URL" "$identity")")
    done
    local index
    for index in "${!deferred[@]}"; do
        read -r name url document identity method route <<<"${deferred[$index]}"
        waypoint_log "fuzzing $name at $url as $identity: $method $route, which ends the session"
        _waypoint_fuzz_schemathesis "$name" "$url" "$document" "$identity" "${tokens[$index]}" --include-name "$method $route" ||
            failed+=("$name as $identity: $method $route")
    done
    waypoint_log "contract fuzzing: $WAYPOINT_FUZZ_RUNS schemathesis runs in $(($(date +%s) - started)) s"
    if [[ ${#failed[@]} -gt 0 ]]; then
        printf 'error: contract fuzzing found problems in: %s\n' "$(IFS=';'; echo "${failed[*]}" | sed 's/;/; /g')" >&2
        return 1
    fi
}
