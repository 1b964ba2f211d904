"""What the contract-fuzzing stage (scripts/fuzz.sh) needs to know about one OpenAPI document.

    python document.py DOCUMENT

prints one line per operation that an authenticated run must treat specially, as `KIND METHOD PATH`:

- `stream`: the operation answers `200` with `text/event-stream`, a stream that stays open until the client goes away.
  schemathesis reads every response to its end, so an authenticated call would only end at its request timeout; the
  anonymous runs still fuzz it (401 and 400 end at once).
- `ends-session`: the operation carries `x-ends-session: true` (it revokes the caller's session or erases the
  account, after which the token is refused); the authenticated runs call these after every other operation.

Runs with the fuzzing virtualenv's Python (PyYAML comes with schemathesis).
"""
import sys

import yaml

METHODS = ("get", "put", "post", "delete", "patch", "head", "options", "trace")


def main(path: str) -> None:
    with open(path, encoding="utf-8") as handle:
        document = yaml.safe_load(handle)
    for route, item in (document.get("paths") or {}).items():
        for method in METHODS:
            operation = (item or {}).get(method)
            if not isinstance(operation, dict):
                continue
            ok = (operation.get("responses") or {}).get("200") or (operation.get("responses") or {}).get(200) or {}
            if "text/event-stream" in (ok.get("content") or {}):
                print("stream", method.upper(), route)
            if operation.get("x-ends-session") is True:
                print("ends-session", method.upper(), route)


if __name__ == "__main__":
    main(sys.argv[1])
