// The reviews a token asks about itself, answered from the role table:
// POST /apis/authorization.k8s.io/v1/selfsubjectaccessreviews (`kubectl auth can-i VERB RESOURCE`),
// POST /apis/authorization.k8s.io/v1/selfsubjectrulesreviews (`kubectl auth can-i --list`),
// POST /apis/authentication.k8s.io/{v1,v1beta1}/selfsubjectreviews (`kubectl auth whoami`).
import type { Request, Response } from 'express';
import type { AppContext } from '../context';
import { HttpError } from '../problem';
import { sendJson } from '../body';
import { mediaType, objectBody } from './body';
import { readBody } from '../body';
import { accessReviewSpec, ProtobufError, rulesReviewSpec, unwrap } from '../../../core/kube/protobuf';
import { reviewAccess, type ResourceAttributes } from '../../../service/kube-access-review';
import { discoveryAllows, rulesFor, userInfoOf } from '../../../service/kube-self-reviews';
import type { Principal } from '../../../service/principal';

const PROTOBUF = 'application/vnd.kubernetes.protobuf';

/** `resource`: one of discovery's REVIEWS at `group`/`version`. */
export async function review(ctx: AppContext, req: Request, res: Response, group: string, version: string, resource: string): Promise<void> {
  res.locals.route = `/apis/${group}/${version}/${resource}`;
  if (req.method !== 'POST') throw new HttpError(405, `${resource} take create (POST) only`, undefined, { Allow: 'POST' });
  const p: Principal = res.locals.principal;
  const apiVersion = `${group}/${version}`;
  switch (resource) {
    case 'selfsubjectaccessreviews': {
      const body = (await reviewBody(ctx, req, 'SelfSubjectAccessReview', (raw) => ({ spec: accessReviewSpec(raw) }))) as { spec?: { resourceAttributes?: ResourceAttributes; nonResourceAttributes?: { path?: string; verb?: string } } };
      const spec = body?.spec;
      if (!spec || typeof spec !== 'object') throw new HttpError(422, 'spec: Required value', [{ path: 'spec', message: 'Required value', reason: 'FieldValueRequired' }]);
      let status: { allowed: boolean; reason: string };
      if (spec.resourceAttributes && typeof spec.resourceAttributes === 'object') status = reviewAccess(p, spec.resourceAttributes);
      else if (p.role === 'admin') status = { allowed: true, reason: `token "${p.name}" is an admin` };
      else {
        const allowed = discoveryAllows(spec.nonResourceAttributes?.verb, spec.nonResourceAttributes?.path);
        status = { allowed, reason: allowed ? 'every token may read discovery' : 'other non-resource URLs are for admins' };
      }
      return sendJson(res, 201, { apiVersion, kind: 'SelfSubjectAccessReview', metadata: { creationTimestamp: null }, spec, status });
    }
    case 'selfsubjectrulesreviews': {
      const body = (await reviewBody(ctx, req, 'SelfSubjectRulesReview', (raw) => ({ spec: rulesReviewSpec(raw) }))) as { spec?: { namespace?: unknown } };
      const namespace = body?.spec?.namespace ?? '';
      if (typeof namespace !== 'string') throw new HttpError(422, 'spec.namespace: Invalid value: must be a string', [{ path: 'spec.namespace', message: 'must be a string', reason: 'FieldValueTypeInvalid' }]);
      return sendJson(res, 201, { apiVersion, kind: 'SelfSubjectRulesReview', metadata: { creationTimestamp: null }, spec: { namespace }, status: rulesFor(p, namespace) });
    }
    case 'selfsubjectreviews':
      await reviewBody(ctx, req, 'SelfSubjectReview', () => ({}));
      return sendJson(res, 201, { apiVersion, kind: 'SelfSubjectReview', metadata: { creationTimestamp: null }, status: { userInfo: userInfoOf(p) } });
    default:
      throw new HttpError(404, `the server could not find the requested resource (${apiVersion} ${resource})`);
  }
}

/** The review posted: JSON, or the protobuf kubectl's typed clients send (answers go back as JSON, which they read too). */
async function reviewBody(ctx: AppContext, req: Request, kind: string, fromProtobuf: (raw: Buffer) => unknown): Promise<unknown> {
  const limit = ctx.config.bodyLimitBytes;
  if (mediaType(req) !== PROTOBUF) {
    const body = await objectBody(req, limit);
    if (!body || typeof body !== 'object' || Array.isArray(body)) throw new HttpError(400, `the body must be a ${kind} object`);
    return body;
  }
  try {
    const { kind: sent, raw } = unwrap(await readBody(req, limit));
    if (sent !== kind) throw new HttpError(400, `the body holds a ${sent || 'message of no kind'}, not a ${kind}`);
    return fromProtobuf(raw);
  } catch (e) {
    if (e instanceof ProtobufError) throw new HttpError(400, `the protobuf body could not be read: ${e.message}`);
    throw e;
  }
}
