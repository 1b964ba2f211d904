# Python with the independent peers of the bike side (gpxpy, leuvenmapmatching): a virtualenv under
# WAYPOINT_PEERS_CACHE (default .cache/peers, ignored by git), made from scripts/lib/peers/requirements.txt and remade
# only when that file changes. Exports WAYPOINT_PEERS_PYTHON, which the tests and `waypoint-bench trips` run.
waypoint_peers_install() {
    local cache="${WAYPOINT_PEERS_CACHE:-$(pwd)/.cache/peers}"
    local requirements="scripts/lib/peers/requirements.txt"
    local stamp
    stamp="$(sha256sum "$requirements" | cut -c1-16)"
    local venv="$cache/venv-$stamp"
    if [[ ! -x "$venv/bin/python" || ! -f "$venv/.complete" ]]; then
        waypoint_log "installing the Python peers (gpxpy, leuvenmapmatching) into $venv"
        rm -rf "$venv"
        mkdir -p "$cache"
        python3 -m venv "$venv" || waypoint_die "python3 -m venv failed (is python3-venv installed?)"
        "$venv/bin/pip" install --quiet --disable-pip-version-check --require-virtualenv -r "$requirements" ||
            { rm -rf "$venv"; waypoint_die "installing the Python peers failed"; }
        touch "$venv/.complete"
    fi
    export WAYPOINT_PEERS_PYTHON="$venv/bin/python"
}
