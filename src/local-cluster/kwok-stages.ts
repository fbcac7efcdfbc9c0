/**
 * KWOK's configuration for the local cluster: the Stages that play a kubelet for the fake nodes
 * (KWOK's own `node-initialize` and `node-heartbeat-with-lease`, and its "fast" pod stages, from
 * sigs.k8s.io/kwok kustomize/stage, Apache-2.0), with one change: a pod owned by a Job runs for a
 * time before it completes, so benchmark Jobs end by the real Job controller with measurable run
 * times. The run time of a Job pod, first match wins, as the simulator's kubelet reads it
 * (src/sim/controllers/run-rule.ts rules 1, 2 and 5):
 * 1. the pod annotation `sim.gpuops.dev/run-seconds`;
 * 2. an argument `--sim-duration=SECONDS` of its first container;
 * 3. 60 seconds.
 * It exits 0 (`Succeeded`), or 1 with reason `Error` (`Failed`) when its first container has the
 * argument `--sim-fail` (the simulator's rule 'The container exits 0 unless it has `--sim-fail`'),
 * so the real Job controller's retries and `Failed` condition can be shown.
 * With `speed` > 1 the pod runs `seconds / speed` real seconds and its container writes the
 * termination message `{"durationSeconds": SECONDS}` (a benchmark that times itself), so the run
 * time gpuops reads is the simulated one; at speed 1 no message is written and gpuops measures the
 * container's own start and finish timestamps.
 */

/** jq (KWOK's `expressionFrom`): the run time of a Job pod in seconds, as a string. */
const RUN_SECONDS_JQ =
  '(.metadata.annotations["sim.gpuops.dev/run-seconds"] // ((.spec.containers[0].args // []) | map(select(startswith("--sim-duration="))) | (.[0] // "") | ltrimstr("--sim-duration="))) as $s | (if $s == "" then "60" else $s end)';

const NODE_STAGES = `apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: node-initialize
spec:
  resourceRef: {apiGroup: v1, kind: Node}
  selector:
    matchExpressions:
    - key: '.status.conditions.[] | select( .type == "Ready" ) | .status'
      operator: 'NotIn'
      values: ['True']
  next:
    statusTemplate: |
      {{ $now := Now }}
      {{ $lastTransitionTime := or .metadata.creationTimestamp $now }}
      conditions:
      {{ range NodeConditions }}
      - lastHeartbeatTime: {{ $now | Quote }}
        lastTransitionTime: {{ $lastTransitionTime | Quote }}
        message: {{ .message | Quote }}
        reason: {{ .reason | Quote }}
        status: {{ .status | Quote }}
        type: {{ .type  | Quote}}
      {{ end }}
      addresses:
      {{ with NodeIP }}
      - address: {{ . | Quote }}
        type: InternalIP
      {{ end }}
      {{ with NodeName }}
      - address: {{ . | Quote }}
        type: Hostname
      {{ end }}
      allocatable:
      {{ with .status.allocatable }}
      {{ YAML . 1 }}
      {{ else }}
        cpu: 1k
        memory: 1Ti
        pods: 1M
      {{ end }}
      capacity:
      {{ with .status.capacity }}
      {{ YAML . 1 }}
      {{ else }}
        cpu: 1k
        memory: 1Ti
        pods: 1M
      {{ end }}
      {{ $nodeInfo := .status.nodeInfo }}
      {{ $kwokVersion := printf "kwok-%s" Version }}
      nodeInfo:
        architecture: {{ or $nodeInfo.architecture "amd64" }}
        bootID: {{ or $nodeInfo.bootID \`""\` }}
        containerRuntimeVersion: {{ or $nodeInfo.containerRuntimeVersion $kwokVersion }}
        kernelVersion: {{ or $nodeInfo.kernelVersion $kwokVersion }}
        kubeProxyVersion: {{ or $nodeInfo.kubeProxyVersion $kwokVersion }}
        kubeletVersion: {{ or $nodeInfo.kubeletVersion $kwokVersion }}
        machineID: {{ or $nodeInfo.machineID \`""\` }}
        operatingSystem: {{ or $nodeInfo.operatingSystem "linux" }}
        osImage: {{ or $nodeInfo.osImage \`""\` }}
        systemUUID: {{ or $nodeInfo.systemUUID \`""\` }}
      phase: Running
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: node-heartbeat-with-lease
spec:
  resourceRef: {apiGroup: v1, kind: Node}
  selector:
    matchExpressions:
    - key: '.status.phase'
      operator: 'In'
      values: ['Running']
    - key: '.status.conditions.[] | select( .type == "Ready" ) | .status'
      operator: 'In'
      values: ['True']
  delay:
    durationMilliseconds: 600000
    jitterDurationMilliseconds: 610000
  next:
    statusTemplate: |
      {{ $now := Now }}
      {{ $lastTransitionTime := or .metadata.creationTimestamp $now }}
      conditions:
      {{ range NodeConditions }}
      - lastHeartbeatTime: {{ $now | Quote }}
        lastTransitionTime: {{ $lastTransitionTime | Quote }}
        message: {{ .message | Quote }}
        reason: {{ .reason | Quote }}
        status: {{ .status | Quote }}
        type: {{ .type | Quote }}
      {{ end }}
  immediateNextStage: true
`;

const POD_READY = `apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: pod-ready
spec:
  resourceRef: {apiGroup: v1, kind: Pod}
  selector:
    matchExpressions:
    - key: '.metadata.deletionTimestamp'
      operator: 'DoesNotExist'
    - key: '.status.phase'
      operator: 'In'
      values: ['Pending']
    - key: '.status.conditions.[] | select( .type == "Ready" ) | .status'
      operator: 'NotIn'
      values: ['True']
  next:
    statusTemplate: |
      {{ $now := Now }}
      conditions:
      - lastTransitionTime: {{ $now | Quote }}
        status: "True"
        type: Initialized
      - lastTransitionTime: {{ $now | Quote }}
        status: "True"
        type: Ready
      - lastTransitionTime: {{ $now | Quote }}
        status: "True"
        type: ContainersReady
      containerStatuses:
      {{ range .spec.containers }}
      - image: {{ .image | Quote }}
        name: {{ .name | Quote }}
        ready: true
        restartCount: 0
        started: true
        state:
          running:
            startedAt: {{ $now | Quote }}
      {{ end }}
      initContainerStatuses:
      {{ range .spec.initContainers }}
      - image: {{ .image | Quote }}
        name: {{ .name | Quote }}
        ready: true
        restartCount: 0
        state:
          terminated:
            exitCode: 0
            finishedAt: {{ $now | Quote }}
            reason: Completed
            startedAt: {{ $now | Quote }}
      {{ end }}
      {{ $hostIPs := NodeIPsWith .spec.nodeName }}
      {{ with $hostIPs }}
      hostIP: {{ index . 0 | Quote }}
      {{ end }}
      {{ $podIPs := PodIPsWith .spec.nodeName ( or .spec.hostNetwork false ) ( or .metadata.uid "" ) ( or .metadata.name "" ) ( or .metadata.namespace "" ) }}
      {{ with $podIPs }}
      podIP: {{ index . 0 | Quote }}
      {{ end }}
      phase: Running
      startTime: {{ $now | Quote }}
`;

/** KWOK's query: the arguments of a pod's first container, one value each (none without args). */
const FIRST_ARGS = '(.spec.containers[0].args // [])[]';
/** The argument that makes a Job pod fail (the simulator's `--sim-fail`; exit 1 only here). */
const SIM_FAIL = '--sim-fail';

/** The stage ending a running Job pod after its run time: `Succeeded`, or `Failed` with `--sim-fail`. */
const podEnd = (speed: number, failed: boolean) => `apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: ${failed ? 'pod-fail' : 'pod-complete'}
spec:
  resourceRef: {apiGroup: v1, kind: Pod}
  selector:
    matchExpressions:
    - key: '.metadata.deletionTimestamp'
      operator: 'DoesNotExist'
    - key: '.status.phase'
      operator: 'In'
      values: ['Running']
    - key: '.metadata.ownerReferences.[].kind'
      operator: 'In'
      values: ['Job']
    - key: '${FIRST_ARGS}'
      operator: '${failed ? 'In' : 'NotIn'}'
      values: ['${SIM_FAIL}']
  delay:
    durationMilliseconds: 60000
    durationFrom:
      expressionFrom: '${RUN_SECONDS_JQ} | tonumber / ${speed} | tostring + "s"'
  next:
    statusTemplate: |
      {{ $now := Now }}
      {{ $root := . }}
      {{ $run := "60" }}
      {{ range (index .spec.containers 0).args }}{{ if hasPrefix "--sim-duration=" . }}{{ $run = trimPrefix "--sim-duration=" . }}{{ end }}{{ end }}
      {{ with .metadata.annotations }}{{ with index . "sim.gpuops.dev/run-seconds" }}{{ $run = . }}{{ end }}{{ end }}
      containerStatuses:
      {{ range $index, $item := .spec.containers }}
      {{ $origin := index $root.status.containerStatuses $index }}
      - image: {{ $item.image | Quote }}
        name: {{ $item.name | Quote }}
        ready: false
        restartCount: 0
        started: false
        state:
          terminated:
            exitCode: ${failed ? 1 : 0}
            finishedAt: {{ $now | Quote }}
            reason: ${failed ? 'Error' : 'Completed'}
            startedAt: {{ or $origin.state.running.startedAt $now | Quote }}
            ${speed === 1 || failed ? '' : 'message: {{ printf "{\\"durationSeconds\\": %s}" $run | Quote }}'}
      {{ end }}
      phase: ${failed ? 'Failed' : 'Succeeded'}
`;

const POD_DELETE = `apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: pod-delete
spec:
  resourceRef: {apiGroup: v1, kind: Pod}
  selector:
    matchExpressions:
    - key: '.metadata.deletionTimestamp'
      operator: 'Exists'
  next:
    delete: true
`;

/**
 * The KWOK configuration file (a multi-document YAML of Stages) for Job pods running
 * `seconds / speed` real seconds.
 * @throws Error when `speed` is not a finite number > 0
 */
export function kwokStages(speed = 1): string {
  if (!Number.isFinite(speed) || speed <= 0) throw new Error(`kwok stages: speed must be > 0, got ${speed}`);
  return [NODE_STAGES, POD_READY, podEnd(speed, false), podEnd(speed, true), POD_DELETE].join('---\n');
}
