#!/usr/bin/env bash
# Installs the offline recognizer of issue #52 from pinned PyPI wheels, each checked by its sha256:
#   - sherpa-onnx's C API and the ONNX Runtime it was built with (sherpa-onnx-core, Apache-2.0);
#   - Moonshine base, English (moonshine-cpp's "v2" pair: encoder_model.ort + decoder_model_merged.ort, MIT),
#     with the tokens.txt sherpa-onnx reads (built from the wheel's tokenizer.bin);
#   - the Silero voice activity detector (silero-vad's silero_vad.onnx, MIT), which cuts audio at pauses.
# Usage: scripts/install-models.sh [DIR]   (default: $XDG_DATA_HOME/tnotes/models, ~/.local/share/tnotes/models)
# Safe to run again: a file already installed with the right digest is kept. Needs python3 with pip and
# network access to PyPI; nothing is installed into Python itself.
set -euo pipefail

DIR="${1:-${XDG_DATA_HOME:-$HOME/.local/share}/tnotes/models}"
case "$(uname -m)" in
  x86_64) ;;
  *) echo "install-models: sherpa-onnx-core's wheel is for x86_64 only (this is $(uname -m)); PocketSphinx stays the recognizer" >&2
     exit 1 ;;
esac
command -v python3 >/dev/null || { echo "install-models: python3 is needed" >&2; exit 1; }
python3 -m pip --version >/dev/null 2>&1 || { echo "install-models: python3's pip is needed (apt-get install python3-pip)" >&2; exit 1; }

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

# Pinned versions and the digests of their wheels: pip refuses a wheel whose digest differs.
cat > "$WORK/requirements.txt" <<'REQ'
sherpa-onnx-core==2.0.1 --hash=sha256:f4ee0ab91c4ae596e0e49d7de32522a946295e038a652f1c1884d89014ee4ec2
moonshine-cpp==0.1.4 --hash=sha256:f7afc662bdd3ef98815ee3b940438b456e77d5a77cea5396ed9c572785412ebd
silero-vad==6.2.3 --hash=sha256:7b7f5436cfcb02fae583a05b512ea96467fd449fe54cb49a5e4f06c51a1e43b8
REQ
echo "install-models: downloading the pinned wheels (about 76 MB)" >&2
python3 -m pip download --quiet --no-deps --require-hashes --only-binary=:all: --platform manylinux2014_x86_64 \
  --python-version 3.11 -r "$WORK/requirements.txt" -d "$WORK/wheels"

python3 - "$WORK/wheels" "$DIR" <<'PY'
import base64, hashlib, os, sys, zipfile

wheels, target = sys.argv[1], sys.argv[2]

# (wheel prefix, member in the wheel, where it goes under DIR, its sha256)
FILES = [
    ("sherpa_onnx_core-2.0.1", "sherpa_onnx/lib/libsherpa-onnx-c-api.so", "sherpa-onnx-2.0.1/lib/libsherpa-onnx-c-api.so", None),
    ("sherpa_onnx_core-2.0.1", "sherpa_onnx/lib/libonnxruntime.so", "sherpa-onnx-2.0.1/lib/libonnxruntime.so", None),
    ("sherpa_onnx_core-2.0.1", "sherpa_onnx/include/sherpa-onnx/c-api/c-api.h", "sherpa-onnx-2.0.1/include/c-api.h", None),
    ("moonshine_cpp-0.1.4", "moonshine_cpp-0.1.4.data/purelib/moonshine_cpp/models/base-en/encoder_model.ort",
     "moonshine-base-en/encoder_model.ort", "9d1a19e044cbf89a207723d1adb667de89a5671a1e3e611b8ebe721b2c31219c"),
    ("moonshine_cpp-0.1.4", "moonshine_cpp-0.1.4.data/purelib/moonshine_cpp/models/base-en/decoder_model_merged.ort",
     "moonshine-base-en/decoder_model_merged.ort", "370e0c1f161d68dc1c2264c1a82024fb123380da3b73f47f05531d1e8d3308c3"),
    ("moonshine_cpp-0.1.4", "moonshine_cpp-0.1.4.data/purelib/moonshine_cpp/models/base-en/tokenizer.bin",
     "moonshine-base-en/tokenizer.bin", "04670d78994d030185c3dd843c60591788fed0a56cc6750747bd326825f13ca9"),
    ("moonshine_cpp-0.1.4", "moonshine_cpp-0.1.4.data/purelib/moonshine_cpp/LICENSE", "moonshine-base-en/LICENSE", None),
    ("silero_vad-6.2.3", "silero_vad/data/silero_vad.onnx", "silero-vad/silero_vad.onnx",
     "1a153a22f4509e292a94e67d6f9b85e8deb25b4988682b7e174c65279d8788e3"),
]

def sha256(data):
    return hashlib.sha256(data).hexdigest()

def write(path, data):
    """Whole or absent: a temp file, fsynced, renamed over."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)

def tokens(tokenizer_bin):
    """tokens.txt for sherpa-onnx's Moonshine v2: "<base64 of the token's bytes> <id>" a line (as sherpa-onnx's
    scripts/moonshine/v2/generate_tokens.py writes it). tokenizer.bin holds each token as a length (one byte
    below 128, else two: low 7 bits, then the high byte) and its bytes; length 0 is the empty token."""
    out, i = [], 0
    while i < len(tokenizer_bin):
        first = tokenizer_bin[i]; i += 1
        if first == 0:
            out.append(b""); continue
        if first < 128:
            n = first
        else:
            n = tokenizer_bin[i] * 128 + (first - 128); i += 1
        out.append(tokenizer_bin[i:i + n]); i += n
    return "".join(f"{base64.b64encode(t).decode('ascii')} {k}\n" for k, t in enumerate(out)).encode("ascii")

by_prefix = {}
for name in os.listdir(wheels):
    for prefix, *_ in FILES:
        if name.startswith(prefix + "-"):
            by_prefix[prefix] = zipfile.ZipFile(os.path.join(wheels, name))
manifest = []
for prefix, member, dest, digest in FILES:
    data = by_prefix[prefix].read(member)
    if digest and sha256(data) != digest:
        sys.exit(f"install-models: {member} in {prefix}: sha256 {sha256(data)}, expected {digest}")
    path = os.path.join(target, dest)
    if not (os.path.exists(path) and sha256(open(path, "rb").read()) == sha256(data)):
        write(path, data)
    manifest.append((sha256(data), dest))
tok = tokens(open(os.path.join(target, "moonshine-base-en/tokenizer.bin"), "rb").read())
count = tok.count(b"\n")
if count != 32000:
    sys.exit(f"install-models: tokens.txt has {count} tokens, expected 32000")
write(os.path.join(target, "moonshine-base-en/tokens.txt"), tok)
manifest.append((sha256(tok), "moonshine-base-en/tokens.txt"))
write(os.path.join(target, "MANIFEST.sha256"), "".join(f"{d}  {p}\n" for d, p in manifest).encode())
print(f"install-models: installed into {target}")
for d, p in manifest:
    print(f"  {p}")
PY
