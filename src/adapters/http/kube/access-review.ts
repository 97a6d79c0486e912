// POST /apis/authorization.k8s.io/v1/selfsubjectaccessreviews: `kubectl auth can-i`.
import type { Request, Response } from 'express';
import type { AppContext } from '../context';
import { HttpError } from '../problem';
import { sendJson } from '../body';
import { mediaType, objectBody } from './body';
import { readBody } from '../body';
import { accessReviewSpec, ProtobufError, unwrap } from '../../../core/kube/protobuf';
import { reviewAccess, type ResourceAttributes } from '../../../service/kube-access-review';
import type { Principal } from '../../../service/principal';

export async function accessReview(ctx: AppContext, req: Request, res: Response): Promise<void> {
  res.locals.route = '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews';
  if (req.method !== 'POST') throw new HttpError(405, 'selfsubjectaccessreviews take create (POST) only');
  const body = (mediaType(req) === PROTOBUF ? await protobufReview(req, ctx.config.bodyLimitBytes) : await objectBody(req, ctx.config.bodyLimitBytes)) as { spec?: { resourceAttributes?: ResourceAttributes; nonResourceAttributes?: unknown } };
  const spec = body?.spec;
  if (!spec || typeof spec !== 'object') throw new HttpError(422, 'spec: Required value', [{ path: 'spec', message: 'Required value', reason: 'FieldValueRequired' }]);
  const p: Principal = res.locals.principal;
  let status: { allowed: boolean; reason: string };
  if (spec.resourceAttributes && typeof spec.resourceAttributes === 'object') status = reviewAccess(p, spec.resourceAttributes);
  else status = { allowed: p.role === 'admin', reason: p.role === 'admin' ? `token "${p.name}" is an admin` : 'non-resource URLs are for admins' };
  sendJson(res, 201, { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', metadata: { creationTimestamp: null }, spec, status });
}

const PROTOBUF = 'application/vnd.kubernetes.protobuf';

// kubectl's typed client posts the review as protobuf; the answer goes back as JSON, which it reads too
async function protobufReview(req: Request, limit: number): Promise<unknown> {
  try {
    const { kind, raw } = unwrap(await readBody(req, limit));
    if (kind !== 'SelfSubjectAccessReview') throw new HttpError(400, `the body holds a ${kind || 'message of no kind'}, not a SelfSubjectAccessReview`);
    return { spec: accessReviewSpec(raw) };
  } catch (e) {
    if (e instanceof ProtobufError) throw new HttpError(400, `the protobuf body could not be read: ${e.message}`);
    throw e;
  }
}
