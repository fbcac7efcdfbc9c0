/**
 * The Eviction subresource of a Pod: `POST /api/v1/namespaces/NS/pods/NAME/eviction` with a
 * `policy/v1` `Eviction` body (https://kubernetes.io/docs/concepts/scheduling-eviction/api-eviction/).
 * As the API server does, it adds the pod condition `DisruptionTarget=True` with reason
 * `EvictionByEvictionAPI`; the simulated kubelet then stops the containers at once (exit code
 * 137, SIGKILL after a zero grace period) and the pod ends `Failed`. Unlike a real cluster the
 * Failed pod stays listed (there the Job's tracking finalizer keeps it until the Job controller
 * counted it); PodDisruptionBudgets are not checked. A pod that already ended is left as it is.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendJson } from './http-util.js';
import { existing, readObject, type RestContext, type Target } from './rest-target.js';
import { setCondition } from './controllers/pods.js';
import { k8sTime } from './controllers/time.js';
import { SimApiError, type KubeObject } from './types.js';

/** Handles the POST; answers 201 with a `Status` of `Success`. @throws SimApiError 400, 404 */
export async function evict(
  req: IncomingMessage,
  res: ServerResponse,
  t: Target,
  ctx: RestContext,
): Promise<void> {
  const body = (await readObject(req)) as Partial<KubeObject> | null;
  if (!body || typeof body !== 'object' || body.kind !== 'Eviction') {
    throw new SimApiError(400, 'BadRequest', 'the body of an eviction must be a policy/v1 Eviction');
  }
  if (body.metadata?.name !== undefined && body.metadata.name !== t.name) {
    throw new SimApiError(400, 'BadRequest', 'name in URL does not match name in Eviction object');
  }
  const pod = existing(t, ctx);
  const phase = pod.status?.phase as string | undefined;
  if (phase !== 'Succeeded' && phase !== 'Failed') {
    const at = k8sTime(ctx.clock.now().getTime());
    const status = (pod.status ??= {});
    status.conditions = setCondition(
      status.conditions as Record<string, unknown>[] | undefined,
      {
        type: 'DisruptionTarget',
        status: 'True',
        reason: 'EvictionByEvictionAPI',
        message: 'Eviction API: evicting',
      },
      at,
    );
    status.phase = 'Failed';
    type Status = { state?: { running?: { startedAt?: string } } & Record<string, unknown> } & Record<
      string,
      unknown
    >;
    for (const cs of (status.containerStatuses as Status[] | undefined) ?? []) {
      const startedAt = cs.state?.running?.startedAt;
      cs.state = {
        terminated: { exitCode: 137, reason: 'Error', ...(startedAt ? { startedAt } : {}), finishedAt: at },
      };
      cs.ready = false;
      cs.started = false;
    }
    ctx.store.update('pods', pod);
    ctx.afterWrite();
  }
  sendJson(res, 201, { apiVersion: 'v1', kind: 'Status', metadata: {}, status: 'Success', code: 201 });
}
