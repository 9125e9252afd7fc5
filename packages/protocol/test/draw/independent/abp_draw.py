#!/usr/bin/env python3
# An independent re-implementation of abp-draw/v1 written from docs/draw-algorithm.md alone (standard library only):
# the seedrandom ARC4 stream, the uniform index, the selection, and the record's id, digest and bytes.
"""Reads one JSON request (or a JSON array of them) on stdin and prints the answer (or an array of answers).

Requests, told apart by their keys:
  {"seed", "count", "pool": {"repos": [{"repo", "issues": [{"number", "title"}]}]}}
      -> {"picks": [{"repo", "number", "title"}]}; with "registryVersion", "registryDigest", "snapshotDigest",
         "eligibilityRules", "optOuts" (list) and "drawnAt" also {"id", "digest", "record", "text"}.
  {"seed", "values": m}       -> {"values": [the first m unsigned 32-bit values after the drop]}
  {"seed", "indices": [n...]} -> {"indices": [one uniform index per n, read in turn from one stream]}
  {"seed", "trace": true}     -> the check values of doc §2.6
  {"rc4Key": "text", "bytes": m} -> {"bytes": [m plain RC4 bytes, no drop]} (doc §2.4's "Key" check)
  {"optOuts": [...]}          -> {"optOutsDigest"}
A request the document forbids gets {"error": {"code", "message"}} instead; the process still exits 0.
"""
import hashlib
import json
import sys

ALGORITHM = "abp-draw/v1"
MAX_SEED = 2**53 - 1
TWO_32 = 2**32


class DrawRefused(Exception):
    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


def code_units(text):
    """A sort key giving code-unit order (doc conventions): compare the UTF-16 code units."""
    data = text.encode("utf-16-be", "surrogatepass")
    return [int.from_bytes(data[k:k + 2], "big") for k in range(0, len(data), 2)]


# --- §2 the generator -------------------------------------------------------------------------------------------

def seed_string(seed):
    if type(seed) is not int or seed < 0 or seed > MAX_SEED:
        raise DrawRefused("invalid-seed", f"seed must be an integer 0..{MAX_SEED}, got {seed!r}")
    return f"{ALGORITHM}:{seed}"


def mixkey(text):
    """§2.2, the general rule, including the smear for strings longer than 256 code units."""
    units = code_units(text)
    key = []
    smear = 0
    for p, c in enumerate(units):
        if p >= 256:
            smear ^= key[p % 256] * 19
            key[p % 256] = (smear + c) % 256
        else:
            key.append((smear + c) % 256)
    return key or [0]


class Arc4:
    def __init__(self, key):
        s = list(range(256))
        j = 0
        for x in range(256):
            j = (j + s[x] + key[x % len(key)]) % 256
            s[x], s[j] = s[j], s[x]
        self.s = s
        self.schedule_j = j
        self.i = 0
        self.j = 0

    def byte(self):
        s = self.s
        self.i = (self.i + 1) % 256
        self.j = (self.j + s[self.i]) % 256
        s[self.i], s[self.j] = s[self.j], s[self.i]
        return s[(s[self.i] + s[self.j]) % 256]

    def drop(self):
        return [self.byte() for _ in range(256)]

    def uint32(self):
        u = 0
        for _ in range(4):
            u = u * 256 + self.byte()
        return u


def draw_stream(seed):
    generator = Arc4(mixkey(seed_string(seed)))
    generator.drop()
    return generator


# --- §3 the uniform index ---------------------------------------------------------------------------------------

def uniform_index(generator, n):
    if type(n) is not int or n < 1 or n > TWO_32:
        raise DrawRefused("invalid-count", f"a uniform index needs 1 <= n <= 2^32, got {n!r}")
    limit = TWO_32 - TWO_32 % n
    while True:
        u = generator.uint32()
        if u < limit:
            return u % n


# --- §4 the selection -------------------------------------------------------------------------------------------

def checked_pool(pool):
    """The pool in the order §1 requires, refused (not sorted) when out of order; empty repositories dropped."""
    repos = []
    previous = None
    for entry in pool["repos"]:
        name = entry["repo"]
        if previous is not None and code_units(name) <= code_units(previous):
            raise DrawRefused("unsorted-pool", f"repository {name!r} follows {previous!r}: need code-unit order, each once")
        previous = name
        numbers = [issue["number"] for issue in entry["issues"]]
        if any(b <= a for a, b in zip(numbers, numbers[1:])):
            raise DrawRefused("unsorted-pool", f"issues of {name!r} are not by number ascending, each once: {numbers}")
        if entry["issues"]:
            repos.append((name, [(issue["number"], issue["title"]) for issue in entry["issues"]]))
    return repos


def select_issues(pool, seed, count):
    if type(count) is not int or count < 1:
        raise DrawRefused("invalid-count", f"count must be an integer >= 1, got {count!r}")
    generator = draw_stream(seed)
    remaining = [(name, list(issues)) for name, issues in checked_pool(pool)]
    picks = []
    while len(picks) < count and remaining:
        r = uniform_index(generator, len(remaining))
        name, issues = remaining[r]
        k = uniform_index(generator, len(issues))
        number, title = issues.pop(k)
        picks.append({"repo": name, "number": number, "title": title})
        if not issues:
            del remaining[r]
    return picks


# --- §6 canonical JSON, digests and the record ------------------------------------------------------------------

NAMED_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def canonical_string(text):
    out = ['"']
    for ch in text:
        if ch in NAMED_ESCAPES:
            out.append(NAMED_ESCAPES[ch])
        elif ord(ch) < 0x20:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def canonical_json(value):
    if isinstance(value, bool) or value is None:
        raise TypeError(f"abp-draw/v1 canonical JSON holds only strings, integers, arrays and objects, got {value!r}")
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return canonical_string(value)
    if isinstance(value, list):
        return "[" + ",".join(canonical_json(item) for item in value) + "]"
    if isinstance(value, dict):
        keys = sorted(value, key=code_units)
        return "{" + ",".join(canonical_string(k) + ":" + canonical_json(value[k]) for k in keys) + "}"
    raise TypeError(f"cannot write {value!r} as canonical JSON")


def content_digest(value):
    return "sha256:" + hashlib.sha256(canonical_json(value).encode("utf-8")).hexdigest()


def ascii_lower(text):
    return "".join(chr(ord(ch) + 32) if "A" <= ch <= "Z" else ch for ch in text)


def opt_outs_digest(opt_outs):
    return content_digest(sorted({ascii_lower(name) for name in opt_outs}, key=code_units))


def draw_id(seed, count, registry_version, registry_digest, snapshot_digest, eligibility_rules, opt_outs_digest_value):
    basis = {
        "algorithm": ALGORITHM, "count": count, "eligibilityRules": eligibility_rules, "optOuts": opt_outs_digest_value,
        "registry": registry_digest, "registryVersion": registry_version, "seed": seed, "snapshot": snapshot_digest,
    }
    quarter = registry_version.split("/", 1)[1]
    return f"draw-{quarter}-{seed}-{content_digest(basis)[len('sha256:'):][:12]}"


def build_record(request):
    seed, count = request["seed"], request["count"]
    picks = select_issues(request["pool"], seed, count)
    pool = checked_pool(request["pool"])
    opt_digest = opt_outs_digest(request["optOuts"])
    record = {
        "schema": ALGORITHM,
        "id": draw_id(seed, count, request["registryVersion"], request["registryDigest"], request["snapshotDigest"],
                      request["eligibilityRules"], opt_digest),
        "registryVersion": request["registryVersion"],
        "seed": seed,
        "algorithm": ALGORITHM,
        "drawnAt": request["drawnAt"],
        "backlogSnapshot": {"digest": request["snapshotDigest"], "repos": len(pool),
                            "issues": sum(len(issues) for _, issues in pool)},
        "eligibilityRules": request["eligibilityRules"],
        "inputDigests": {"registry": request["registryDigest"], "backlog": request["snapshotDigest"], "optOuts": opt_digest},
        "picks": [{"order": order, "repo": p["repo"], "issue": p["number"],
                   "issueUrl": f"https://github.com/{p['repo']}/issues/{p['number']}", "title": p["title"]}
                  for order, p in enumerate(picks, start=1)],
        "requested": count,
    }
    record["digest"] = content_digest(record)
    return picks, record


# --- the CLI ----------------------------------------------------------------------------------------------------

def trace(seed):
    text = seed_string(seed)
    key = mixkey(text)
    generator = Arc4(key)
    after_schedule = list(generator.s)
    dropped = generator.drop()
    return {
        "seedString": text, "key": key, "sFirst16": after_schedule[:16], "sLast4": after_schedule[252:],
        "scheduleJ": generator.schedule_j, "droppedFirst8": dropped[:8], "droppedLast4": dropped[-4:],
        "iAfterDrop": generator.i, "jAfterDrop": generator.j,
        "first16": [generator.byte() for _ in range(16)],
    }


def answer(request):
    try:
        if "rc4Key" in request:
            generator = Arc4(mixkey(request["rc4Key"]))
            return {"bytes": [generator.byte() for _ in range(request["bytes"])]}
        if "pool" in request:
            if "registryVersion" in request:
                picks, record = build_record(request)
                return {"picks": picks, "id": record["id"], "digest": record["digest"], "record": record,
                        "text": canonical_json(record) + "\n"}
            return {"picks": select_issues(request["pool"], request["seed"], request["count"])}
        if "values" in request:
            generator = draw_stream(request["seed"])
            return {"values": [generator.uint32() for _ in range(request["values"])]}
        if "indices" in request:
            generator = draw_stream(request["seed"])
            return {"indices": [uniform_index(generator, n) for n in request["indices"]]}
        if request.get("trace"):
            return trace(request["seed"])
        if "optOuts" in request:
            return {"optOutsDigest": opt_outs_digest(request["optOuts"])}
    except DrawRefused as refusal:
        return {"error": {"code": refusal.code, "message": str(refusal)}}
    raise SystemExit(f"abp_draw.py: unknown request with keys {sorted(request)}; see the usage at the top of this file")


def main():
    request = json.loads(sys.stdin.read())
    result = [answer(r) for r in request] if isinstance(request, list) else answer(request)
    # ensure_ascii=False: titles go back to the test as themselves; the digests never depend on this output.
    sys.stdout.write(json.dumps(result, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
