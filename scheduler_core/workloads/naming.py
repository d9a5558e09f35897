"""Names, hashes, uids and owner references as kube-controller-manager makes them.

- controller.ComputeHash: FNV-32a over the pod template, printed in decimal and passed through
  rand.SafeEncodeString. Go feeds the hash a spew dump of the Go struct; we feed it the
  template as canonical JSON (sorted keys), so a hash is stable and deterministic here but is
  not the value a real cluster would print for the same template.
- generateName: the base cut to 58 characters, then 5 characters of rand.String's alphabet
  (apiserver's names.SimpleNameGenerator), drawn from the run's seeded generator.
"""
from __future__ import annotations

import json
import uuid

# k8s.io/apimachinery/pkg/util/rand: consonants and digits, no vowels, no 0/1/3.
ALPHANUMS = "bcdfghjklmnpqrstvwxz2456789"
RANDOM_LENGTH = 5
MAX_NAME_LENGTH = 63
MAX_GENERATED_NAME_LENGTH = MAX_NAME_LENGTH - RANDOM_LENGTH
FNV32_OFFSET = 0x811C9DC5
FNV32_PRIME = 0x01000193


def fnv32a(data: bytes) -> int:
    h = FNV32_OFFSET
    for byte in data:
        h = ((h ^ byte) * FNV32_PRIME) & 0xFFFFFFFF
    return h


def safe_encode_string(text: str) -> str:
    return "".join(ALPHANUMS[ord(ch) % len(ALPHANUMS)] for ch in text)


def compute_hash(template: dict, collision_count: int | None = None) -> str:
    data = json.dumps(template or {}, sort_keys=True, separators=(",", ":")).encode()
    if collision_count is not None:
        # binary.LittleEndian.PutUint32 into an 8-byte buffer: four bytes, then four zeros.
        data += int(collision_count).to_bytes(4, "little") + bytes(4)
    return safe_encode_string(str(fnv32a(data)))


def random_string(rng, length: int = RANDOM_LENGTH) -> str:
    return "".join(rng.choice(ALPHANUMS) for _ in range(length))


def generate_name(rng, base: str) -> str:
    """names.SimpleNameGenerator.GenerateName."""
    if len(base) > MAX_GENERATED_NAME_LENGTH:
        base = base[:MAX_GENERATED_NAME_LENGTH]
    return base + random_string(rng)


def new_uid(rng) -> str:
    """A UUID drawn from the seeded generator, so that a run is reproducible."""
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def owner_reference(owner: dict) -> dict:
    """metav1.NewControllerRef: the controlling owner, which blocks the owner's deletion."""
    meta = owner["metadata"]
    return {"apiVersion": owner.get("apiVersion", ""), "kind": owner.get("kind", ""),
            "name": meta["name"], "uid": meta.get("uid", ""),
            "controller": True, "blockOwnerDeletion": True}


def controller_of(obj: dict) -> dict | None:
    """metav1.GetControllerOf: the owner reference with controller: true."""
    for ref in (obj.get("metadata") or {}).get("ownerReferences") or []:
        if ref.get("controller"):
            return ref
    return None


def is_owned_by(obj: dict, owner: dict) -> bool:
    """Owned when the controller reference names the owner (by uid when both have one)."""
    ref = controller_of(obj)
    if ref is None or ref.get("kind") != owner.get("kind"):
        return False
    meta = owner["metadata"]
    if ref.get("uid") and meta.get("uid"):
        return ref["uid"] == meta["uid"]
    return ref.get("name") == meta["name"]
