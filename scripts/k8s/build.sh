#!/usr/bin/env bash
# Builds the real control plane gpuops's real-cluster suite runs against, from source, from the Go
# module proxy, into one folder (envtest's KUBEBUILDER_ASSETS convention):
#   ~/.cache/gpuops/k8s/<kubernetes version>-<os>-<arch>/
#     kube-apiserver kube-controller-manager kube-scheduler   k8s.io/kubernetes (wrapper module
#                                                              scripts/k8s/modules/kubernetes)
#     etcd                                                     go.etcd.io/etcd/server/v3 (same module)
#     kwok source-controller kustomize-controller              sigs.k8s.io/kwok, Flux (wrapper
#                                                              module scripts/k8s/modules/controllers)
#     crds/                                                    Flux's CRDs from the modules' config/
#     versions.txt                                             what is in the folder (written last)
#     prometheus-adapter (+ prometheus-adapter.version)        sigs.k8s.io/prometheus-adapter (wrapper
#                                                              module scripts/k8s/modules/adapter): the
#                                                              custom metrics API of the real HPA; added
#                                                              to a complete folder without rebuilding it
# The versions are pinned in the wrapper modules' go.mod and go.sum (committed); no binary is.
# Idempotent: when versions.txt says what this script would build and every binary is there, it
# checks and exits (a warm run). Prints the folder on stdout; progress and errors on stderr, each
# error one line naming the step. Environment: GPUOPS_K8S_ASSETS (another folder), GOPROXY etc.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
KUBERNETES=v1.37.2
ETCD=v3.7.0
KWOK=v0.8.0
SOURCE_CONTROLLER=v1.9.6
KUSTOMIZE_CONTROLLER=v1.9.6
ADAPTER=v0.12.0
os=$(go env GOOS 2>/dev/null || echo linux)
arch=$(go env GOARCH 2>/dev/null || echo amd64)
dest=${GPUOPS_K8S_ASSETS:-$HOME/.cache/gpuops/k8s/${KUBERNETES#v}-$os-$arch}
BINARIES=(etcd kube-apiserver kube-controller-manager kube-scheduler kwok source-controller kustomize-controller)
wanted="kubernetes $KUBERNETES
etcd $ETCD
kwok $KWOK
source-controller $SOURCE_CONTROLLER
kustomize-controller $KUSTOMIZE_CONTROLLER"

say() { echo "k8s build: $*" >&2; }
fail() {
  echo "k8s build: $1" >&2
  exit 1
}

complete() {
  [ -f "$dest/versions.txt" ] && [ "$(cat "$dest/versions.txt")" = "$wanted" ] || return 1
  for b in "${BINARIES[@]}"; do [ -x "$dest/$b" ] || return 1; done
  [ -d "$dest/crds" ]
}

adapter_complete() {
  [ -x "$dest/prometheus-adapter" ] && [ "$(cat "$dest/prometheus-adapter.version" 2>/dev/null)" = "prometheus-adapter $ADAPTER" ]
}

# prometheus-adapter into folder $1: its own module, its own dependency versions (k8s.io v0.30).
build_adapter() {
  local into=$1 out
  say "download: modules of scripts/k8s/modules/adapter"
  if ! out=$(cd "$here/modules/adapter" && go mod download 2>&1); then
    fail "download: cannot fetch the modules of scripts/k8s/modules/adapter from the Go module proxy ($(go env GOPROXY)): $(echo "$out" | grep -m1 -v '^go: downloading' || true)"
  fi
  build adapter "" sigs.k8s.io/prometheus-adapter/cmd/adapter
  mv "$tmp/adapter" "$into/prometheus-adapter"
  # Its --help exits 2 (pflag's ErrHelp); a binary that starts prints the flag set.
  out=$("$into/prometheus-adapter" --help 2>&1 || true)
  if ! grep -q -- '--prometheus-url' <<<"$out"; then
    fail "start: prometheus-adapter --help printed no flags: $(echo "$out" | head -n1)"
  fi
  echo "prometheus-adapter $ADAPTER" >"$into/prometheus-adapter.version"
}

if complete && adapter_complete; then
  say "up to date in $dest"
  echo "$dest"
  exit 0
fi

command -v go >/dev/null 2>&1 || fail "toolchain: no go on the PATH (Go 1.26 is needed)"
export GOTOOLCHAIN=local GOFLAGS=-mod=readonly
tmp=$(mktemp -d "$(dirname "$dest")/.build.XXXXXX" 2>/dev/null) || {
  mkdir -p "$(dirname "$dest")"
  tmp=$(mktemp -d "$(dirname "$dest")/.build.XXXXXX")
}
trap 'rm -rf "$tmp"' EXIT
started=$(date +%s)

# 1. Download every module (the step that needs the proxy), so a proxy that cannot be reached is
#    told as such and not as a compile error.
for m in kubernetes controllers; do
  say "download: modules of scripts/k8s/modules/$m"
  if ! out=$(cd "$here/modules/$m" && go mod download 2>&1); then
    fail "download: cannot fetch the modules of scripts/k8s/modules/$m from the Go module proxy ($(go env GOPROXY)): $(echo "$out" | grep -m1 -v '^go: downloading' || true)"
  fi
done

# 2. Build. All binaries of one module in one `go build`, so shared packages compile once.
# kube-* report their release (/version, `--version`) from component-base's variables, which
# Kubernetes' own build sets with -X; without them they say v0.0.0-master.
minor=${KUBERNETES#v1.}
minor=${minor%%.*}
k8s_version="-X k8s.io/component-base/version.gitVersion=$KUBERNETES -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$minor -X k8s.io/component-base/version.gitTreeState=clean"
build() {
  local m=$1 ldflags=$2
  shift 2
  say "build: $* ($m; a cold build takes tens of minutes on 2 cores)"
  if ! out=$(cd "$here/modules/$m" && go build -trimpath -ldflags="-s -w $ldflags" -o "$tmp/" "$@" 2>&1); then
    fail "build: go build in scripts/k8s/modules/$m failed: $(echo "$out" | grep -m1 -v '^go: downloading' || true)"
  fi
}
# A folder complete but for the adapter (built before it was added): the adapter alone.
if complete; then
  build_adapter "$dest"
  say "prometheus-adapter built in $(($(date +%s) - started)) s into $dest"
  echo "$dest"
  exit 0
fi

build kubernetes "$k8s_version" k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager \
  k8s.io/kubernetes/cmd/kube-scheduler go.etcd.io/etcd/server/v3
mv "$tmp/server" "$tmp/etcd" # the etcd main package is go.etcd.io/etcd/server/v3
build controllers "" sigs.k8s.io/kwok/cmd/kwok github.com/fluxcd/source-controller github.com/fluxcd/kustomize-controller

# 3. Flux's CRDs, from the same module versions' config/crd/bases.
mkdir -p "$tmp/crds"
for mv in "github.com/fluxcd/source-controller@$SOURCE_CONTROLLER" "github.com/fluxcd/kustomize-controller@$KUSTOMIZE_CONTROLLER"; do
  dir=$(cd "$here/modules/controllers" && go mod download -json "$mv" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
  [ -d "$dir/config/crd/bases" ] || fail "crds: $mv has no config/crd/bases"
  cp "$dir"/config/crd/bases/*.yaml "$tmp/crds/"
done
chmod -R u+w "$tmp/crds"

# 4. Each binary starts (a broken build or a missing library shows here, not in the suite).
for b in "${BINARIES[@]}"; do
  case $b in
    source-controller | kustomize-controller) args=(--help) ;;
    *) args=(--version) ;;
  esac
  if ! out=$("$tmp/$b" "${args[@]}" 2>&1); then
    fail "start: $b ${args[*]} failed: $(echo "$out" | head -n1)"
  fi
done

build_adapter "$tmp"

echo "$wanted" >"$tmp/versions.txt"
rm -rf "$dest"
mv "$tmp" "$dest"
trap - EXIT
say "built in $(($(date +%s) - started)) s into $dest"
echo "$dest"
