// Filters as the table carries them: normalized (defaults filled in, header names deduplicated),
// in the order the rule lists them. A filter the table cannot express makes its rule invalid.
import type {
  HTTPCORSFilter, HTTPHeaderFilter, HTTPPathModifier, HTTPRequestMirrorFilter, HTTPRequestRedirectFilter,
  HTTPURLRewriteFilter, Route,
} from '../model/objects';
import type { RouteFilter } from '../model/route-parts';
import type { TranslationContext } from '../translate/context';
import { RouteReason } from '../status/reasons';
import { compileBackend, type BackendResolver } from './backends';
import type { CompiledFilter, CompiledHeaderModifier, CompiledPathModifier, CompiledProblem } from './types';

/** The ExternalAuth filter as the API gives it (experimental: typed here, not in the generated model). */
interface ExternalAuthSpec {
  protocol?: string;
  backendRef?: Record<string, unknown>;
  grpc?: { allowedHeaders?: unknown };
  http?: { path?: string; allowedHeaders?: unknown; allowedResponseHeaders?: unknown };
  forwardBody?: { maxSize?: number };
}

/**
 * How long a proxy waits for an authorization server before it denies (the API leaves the failure
 * modes to the implementation; Envoy's ext_authz denies too, and waits 200 ms by default, which a
 * busy server exceeds too easily).
 */
export const EXTERNAL_AUTH_TIMEOUT_MS = 2000;

export interface FilterContext {
  ctx: TranslationContext;
  route: Route;
  resolve: BackendResolver;
}

export interface CompiledFilters {
  filters: CompiledFilter[];
  problem?: CompiledProblem;
}

/** Which filter types a rule of this kind may carry (backend-level filters: the header modifiers). */
const ALLOWED: Record<'rule' | 'grpcRule' | 'backend', ReadonlySet<string>> = {
  rule: new Set(['RequestHeaderModifier', 'ResponseHeaderModifier', 'RequestRedirect', 'URLRewrite', 'RequestMirror', 'CORS', 'ExternalAuth']),
  grpcRule: new Set(['RequestHeaderModifier', 'ResponseHeaderModifier', 'RequestMirror']),
  backend: new Set(['RequestHeaderModifier', 'ResponseHeaderModifier', 'RequestRedirect', 'URLRewrite', 'RequestMirror', 'CORS']),
};

export function compileFilters(raw: unknown, where: keyof typeof ALLOWED, ctx: FilterContext): CompiledFilters {
  const filters: CompiledFilter[] = [];
  if (!Array.isArray(raw)) return { filters };
  for (const f of raw as readonly (RouteFilter | null | undefined)[]) {
    const type = f?.type;
    if (!f || !type || !ALLOWED[where].has(type)) {
      return {
        filters,
        problem: {
          reason: RouteReason.UnsupportedValue,
          message: type === 'ExtensionRef'
            ? `ExtensionRef filter ${f?.extensionRef?.kind ?? '?'}/${f?.extensionRef?.name ?? '?'} is not supported`
            : `filter type ${JSON.stringify(type)} is not supported here`,
        },
      };
    }
    const compiled = compileFilter(f, ctx);
    if ('problem' in compiled) return { filters, problem: compiled.problem };
    filters.push(compiled.filter);
  }
  return { filters };
}

function headerModifier(m: Partial<HTTPHeaderFilter> | undefined): CompiledHeaderModifier {
  const dedupe = (list: readonly ({ name?: unknown; value?: unknown } | null)[] | undefined) => {
    const seen = new Set<string>();
    const out: { name: string; value: string }[] = [];
    for (const h of list ?? []) {
      if (!h || typeof h.name !== 'string') continue;
      const key = h.name.toLowerCase();
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ name: h.name, value: String(h.value ?? '') });
    }
    return out;
  };
  return {
    set: dedupe(m?.set),
    add: dedupe(m?.add),
    remove: [...new Set<string>((m?.remove ?? []).filter((n: unknown) => typeof n === 'string'))],
  };
}

function pathModifier(p: Partial<HTTPPathModifier> | undefined): CompiledPathModifier | undefined {
  if (!p) return undefined;
  if (p.type === 'ReplaceFullPath') return { type: 'ReplaceFullPath', value: String(p.replaceFullPath ?? '/') };
  if (p.type === 'ReplacePrefixMatch') return { type: 'ReplacePrefixMatch', value: String(p.replacePrefixMatch ?? '') };
  return undefined;
}

function compileFilter(f: RouteFilter, ctx: FilterContext): { filter: CompiledFilter } | { problem: CompiledProblem } {
  switch (f.type) {
    case 'RequestHeaderModifier':
      return { filter: { type: 'RequestHeaderModifier', requestHeaderModifier: headerModifier(f.requestHeaderModifier) } };
    case 'ResponseHeaderModifier':
      return { filter: { type: 'ResponseHeaderModifier', responseHeaderModifier: headerModifier(f.responseHeaderModifier) } };
    case 'RequestRedirect': {
      const r: Partial<HTTPRequestRedirectFilter> = f.requestRedirect ?? {};
      const path = pathModifier(r.path);
      if (r.path && !path) return { problem: { reason: RouteReason.UnsupportedValue, message: `redirect path type ${JSON.stringify(r.path.type)} is not supported` } };
      if (r.scheme !== undefined && r.scheme !== 'http' && r.scheme !== 'https') {
        return { problem: { reason: RouteReason.UnsupportedValue, message: `redirect scheme ${JSON.stringify(r.scheme)} is not supported` } };
      }
      return {
        filter: {
          type: 'RequestRedirect',
          requestRedirect: {
            ...(r.scheme ? { scheme: r.scheme } : {}),
            ...(r.hostname ? { hostname: String(r.hostname).toLowerCase() } : {}),
            ...(r.port ? { port: Number(r.port) } : {}),
            ...(path ? { path } : {}),
            statusCode: Number(r.statusCode ?? 302),
          },
        },
      };
    }
    case 'URLRewrite': {
      const r: Partial<HTTPURLRewriteFilter> = f.urlRewrite ?? {};
      const path = pathModifier(r.path);
      if (r.path && !path) return { problem: { reason: RouteReason.UnsupportedValue, message: `rewrite path type ${JSON.stringify(r.path.type)} is not supported` } };
      return {
        filter: {
          type: 'URLRewrite',
          urlRewrite: { ...(r.hostname ? { hostname: String(r.hostname).toLowerCase() } : {}), ...(path ? { path } : {}) },
        },
      };
    }
    case 'RequestMirror': {
      const m: Partial<HTTPRequestMirrorFilter> = f.requestMirror ?? {};
      // the resolution of the reference as written; a mirror takes every request it is given, whatever the weight
      const res = { ...ctx.resolve(ctx.route, m.backendRef ?? {}), weight: 1 };
      let percent = 100;
      if (typeof m.percent === 'number') percent = m.percent;
      else if (m.fraction && typeof m.fraction.numerator === 'number') {
        const den = typeof m.fraction.denominator === 'number' && m.fraction.denominator > 0 ? m.fraction.denominator : 100;
        percent = (m.fraction.numerator / den) * 100;
      }
      return { filter: { type: 'RequestMirror', requestMirror: { backend: compileBackend(ctx.ctx, res), percent } } };
    }
    case 'ExternalAuth': {
      const a = (f as { externalAuth?: ExternalAuthSpec }).externalAuth ?? {};
      // an authorization server takes every request it is asked about, whatever a weight would say
      const res = { ...ctx.resolve(ctx.route, a.backendRef ?? {}), weight: 1 };
      const protocol = a.protocol === 'GRPC' ? 'GRPC' : 'HTTP';
      const names = (v: unknown) => (Array.isArray(v) ? [...new Set(v.map((h) => String(h).toLowerCase()))].sort() : []);
      const cfg = protocol === 'GRPC' ? a.grpc : a.http;
      // forwardBody: up to maxSize bytes of the body go to the server (0 or unset: none); a longer body
      // is sent truncated, as the API says (Envoy's allow_partial_message), and reaches the backend whole
      const maxSize = typeof a.forwardBody?.maxSize === 'number' && a.forwardBody.maxSize > 0 ? Math.floor(a.forwardBody.maxSize) : undefined;
      return {
        filter: {
          type: 'ExternalAuth',
          externalAuth: {
            protocol,
            backend: compileBackend(ctx.ctx, res),
            ...(protocol === 'HTTP' && a.http?.path ? { pathPrefix: String(a.http.path) } : {}),
            allowedHeaders: names(cfg?.allowedHeaders),
            allowedResponseHeaders: protocol === 'HTTP' ? names(a.http?.allowedResponseHeaders) : [],
            timeoutMs: EXTERNAL_AUTH_TIMEOUT_MS,
            ...(maxSize !== undefined ? { forwardBodyMaxSize: maxSize } : {}),
          },
        },
      };
    }
    case 'CORS': {
      const c: Partial<HTTPCORSFilter> = f.cors ?? {};
      const list = (v: unknown) => (Array.isArray(v) ? v.map(String) : []);
      return {
        filter: {
          type: 'CORS',
          cors: {
            allowOrigins: list(c.allowOrigins),
            allowMethods: list(c.allowMethods),
            allowHeaders: list(c.allowHeaders),
            exposeHeaders: list(c.exposeHeaders),
            allowCredentials: c.allowCredentials === true,
            maxAge: typeof c.maxAge === 'number' && c.maxAge > 0 ? c.maxAge : 5,
          },
        },
      };
    }
    default:
      return { problem: { reason: RouteReason.UnsupportedValue, message: `filter type ${JSON.stringify(f.type)} is not supported` } };
  }
}
