// Switchyard's request dispatch for nginx (njs 0.7). nginx cannot express Gateway API precedence with
// its own locations (header, query and method matches, listener isolation by Host, 421 for a Host
// that selects another HTTPS listener than the SNI did, weights with an unusable backend's share
// answered 500, mirrors by percentage), so every request of a Gateway's HTTP port comes here first.
// The table the renderer wrote (table-<hash>.js) holds each port's listeners with their entries
// already in precedence order: the first entry that accepts the request wins, as in resolve. The
// request then either gets the gateway's own answer (404, 421, 500, a redirect, a CORS preflight,
// a gRPC status) or goes, by an internal redirect, to the named location nginx renders for the
// rule and the backend chosen, with the variables that location reads set here (the URI and Host
// the backend receives, the request headers the filters touched, the mirrors taken, the response
// headers to finish).
// Written for njs 0.7 (Debian bookworm): no spread, destructuring or classes.

function normalizeHost(raw) {
  if (!raw) return '';
  var h = String(raw).trim().toLowerCase();
  if (h.charAt(0) === '[') {
    var end = h.indexOf(']');
    return end > 0 ? h.slice(0, end + 1) : h;
  }
  var colon = h.lastIndexOf(':');
  if (colon >= 0 && h.indexOf(':') === colon) h = h.slice(0, colon);
  if (h.charAt(h.length - 1) === '.') h = h.slice(0, -1);
  return h;
}

function hostMatches(pattern, host) {
  if (pattern === '') return true;
  if (host === '') return false;
  if (pattern.slice(0, 2) === '*.') {
    var suffix = pattern.slice(1);
    return host.length > suffix.length && host.slice(host.length - suffix.length) === suffix;
  }
  return pattern === host;
}

/**
 * Whether the HTTPRoutes take the gRPC calls to `host` on the listener (src/core/resolve/grpc-calls):
 * one claims it and no GRPCRoute does, or the oldest route claiming it is an HTTPRoute (`a`: the
 * route's place in the age-then-name order, set where a listener has entries of both kinds).
 */
function grpcByHttp(listener, host) {
  var http = -1;
  var i;
  for (i = 0; i < listener.http.length; i++) {
    var e = listener.http[i];
    if (hostMatches(e.h, host) && (http < 0 || (e.a !== undefined && e.a < http))) http = e.a !== undefined ? e.a : 0;
  }
  if (http < 0) return false;
  for (i = 0; i < listener.grpc.length; i++) {
    var g = listener.grpc[i];
    if (hostMatches(g.h, host) && g.a < http) return false;
  }
  return true;
}

/** The most specific listener for a name: exact, then the longest wildcard, then none. */
function selectListener(listeners, name) {
  var best = null;
  var rank = [-1, -1];
  for (var i = 0; i < listeners.length; i++) {
    var h = listeners[i].h;
    if (!hostMatches(h, name)) continue;
    var e = h === '' ? 0 : (h.slice(0, 2) === '*.' ? 0 : h.length);
    var len = h.length;
    if (e > rank[0] || (e === rank[0] && len > rank[1])) {
      best = listeners[i];
      rank = [e, len];
    }
  }
  return best;
}

var regexCache = {};
function fullMatch(pattern, value) {
  var re = regexCache[pattern];
  if (!re) re = regexCache[pattern] = new RegExp('^(?:' + pattern + ')$');
  return re.test(value);
}

function valueMatches(m, value) {
  if (value === undefined || value === null) return false;
  return m.t === 'RegularExpression' ? fullMatch(m.v, value) : m.v === value;
}

function prefixMatches(prefix, path) {
  var p = prefix;
  while (p.length && p.charAt(p.length - 1) === '/') p = p.slice(0, -1);
  if (p === '') return path.charAt(0) === '/' || path === '';
  return path === p || path.slice(0, p.length + 1) === p + '/';
}

function decode(s) {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch (e) {
    return s;
  }
}

function parseQuery(raw) {
  var out = {};
  if (!raw) return out;
  var parts = raw.split('&');
  for (var i = 0; i < parts.length; i++) {
    if (parts[i] === '') continue;
    var eq = parts[i].indexOf('=');
    var name = decode(eq < 0 ? parts[i] : parts[i].slice(0, eq));
    if (!(name in out)) out[name] = eq < 0 ? '' : decode(parts[i].slice(eq + 1));
  }
  return out;
}

function header(r, name) {
  var v = r.headersIn[name];
  return v === undefined ? undefined : String(v);
}

function httpAccepts(m, req, r) {
  if (m.invalid) return false;
  if (m.p.t === 'Exact') {
    if (req.path !== m.p.v) return false;
  } else if (m.p.t === 'PathPrefix') {
    if (!prefixMatches(m.p.v, req.path)) return false;
  } else if (m.p.t === 'RegularExpression') {
    if (!fullMatch(m.p.v, req.path)) return false;
  } else return false;
  if (m.method && m.method !== req.method) return false;
  var i;
  for (i = 0; m.headers && i < m.headers.length; i++) if (!valueMatches(m.headers[i], header(r, m.headers[i].n))) return false;
  if (m.query && m.query.length) {
    if (!req.query) req.query = parseQuery(req.rawQuery);
    for (i = 0; i < m.query.length; i++) if (!valueMatches(m.query[i], req.query[m.query[i].n])) return false;
  }
  return true;
}

function grpcAccepts(m, req, r) {
  if (m.invalid) return false;
  var call = /^\/([^/]+)\/([^/]+)$/.exec(req.path);
  if (!call) return false;
  var regex = m.type === 'RegularExpression';
  if (m.service !== undefined && !(regex ? fullMatch(m.service, call[1]) : m.service === call[1])) return false;
  if (m.method !== undefined && !(regex ? fullMatch(m.method, call[2]) : m.method === call[2])) return false;
  for (var i = 0; m.headers && i < m.headers.length; i++) if (!valueMatches(m.headers[i], header(r, m.headers[i].n))) return false;
  return true;
}

function replacePrefix(path, prefix, replacement) {
  var p = prefix;
  while (p.length && p.charAt(p.length - 1) === '/') p = p.slice(0, -1);
  var rest = prefixMatches(prefix, path) ? path.slice(p.length) : path;
  var rep = replacement;
  while (rep.length && rep.charAt(rep.length - 1) === '/') rep = rep.slice(0, -1);
  var out = rep + rest;
  if (out === '') return '/';
  return out.charAt(0) === '/' ? out : '/' + out;
}

function modifyPath(mod, path, prefix) {
  return mod.type === 'ReplaceFullPath' ? mod.value : replacePrefix(path, prefix === undefined ? '/' : prefix, mod.value);
}

// ---- CORS (as src/core/match/cors.ts and src/core/resolve/actions.ts) ----

function parseOrigin(value) {
  var m = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\/([^/:]+|\[[^\]]+\])(?::(\d+))?\/?$/.exec(String(value).trim());
  if (!m) return null;
  var scheme = m[1].toLowerCase();
  var port = m[3] !== undefined ? m[3] : (scheme === 'http' ? '80' : scheme === 'https' ? '443' : '');
  return { scheme: scheme, host: m[2].toLowerCase(), port: String(Number(port) || port) };
}

function originAllowed(allow, origin) {
  var o = parseOrigin(origin);
  for (var i = 0; i < allow.length; i++) {
    if (allow[i] === '*') return true;
    if (!o) continue;
    var p = parseOrigin(allow[i]);
    if (!p || p.scheme !== o.scheme || p.port !== o.port) continue;
    var star = p.host.indexOf('*');
    if (star < 0) {
      if (p.host === o.host) return true;
      continue;
    }
    var before = p.host.slice(0, star);
    var after = p.host.slice(star + 1);
    if (o.host.length > before.length + after.length && o.host.slice(0, before.length) === before && o.host.slice(o.host.length - after.length) === after) return true;
  }
  return false;
}

function corsHeaders(c, r, preflight) {
  var origin = header(r, 'origin');
  var out = [];
  if (origin === undefined || !originAllowed(c.allowOrigins, origin)) return out;
  var cred = c.allowCredentials;
  out.push(['access-control-allow-origin', origin], ['vary', 'Origin']);
  if (cred) out.push(['access-control-allow-credentials', 'true']);
  if (c.exposeHeaders.length) {
    if (c.exposeHeaders.indexOf('*') < 0) out.push(['access-control-expose-headers', c.exposeHeaders.join(', ')]);
    else if (!cred) out.push(['access-control-expose-headers', '*']);
  }
  if (!preflight) return out;
  var reqMethod = header(r, 'access-control-request-method');
  if (c.allowMethods.indexOf('*') >= 0) {
    if (!cred) out.push(['access-control-allow-methods', '*']);
    else if (reqMethod) out.push(['access-control-allow-methods', reqMethod]);
  } else if (c.allowMethods.length) out.push(['access-control-allow-methods', c.allowMethods.join(', ')]);
  var reqHeaders = header(r, 'access-control-request-headers');
  if (c.allowHeaders.indexOf('*') >= 0) {
    if (!cred) out.push(['access-control-allow-headers', '*']);
    else if (reqHeaders) out.push(['access-control-allow-headers', reqHeaders]);
  } else if (c.allowHeaders.length) out.push(['access-control-allow-headers', c.allowHeaders.join(', ')]);
  out.push(['access-control-max-age', String(c.maxAge)]);
  return out;
}

// ---- the flow of a rule's filters ----

function runFilters(filters, s, r, T) {
  for (var i = 0; i < filters.length; i++) {
    var f = filters[i];
    if (f.type === 'RequestHeaderModifier') s.req.push(f.requestHeaderModifier);
    else if (f.type === 'ResponseHeaderModifier') s.resp.push(f.responseHeaderModifier);
    else if (f.type === 'RequestRedirect') {
      if (!s.redirect) s.redirect = { r: f.requestRedirect, path: s.path, host: s.host };
    } else if (f.type === 'URLRewrite') {
      if (f.urlRewrite.hostname) {
        s.host = f.urlRewrite.hostname;
        s.hostHeader = f.urlRewrite.hostname;
      }
      if (f.urlRewrite.path) {
        s.path = modifyPath(f.urlRewrite.path, s.path, s.prefix);
        s.pathRewritten = true;
      }
    } else if (f.type === 'RequestMirror') s.mirrors.push(f.mirror);
    else if (f.type === 'CORS') s.cors = f.cors;
  }
}

function locationOf(s, listener) {
  var rd = s.redirect.r;
  var scheme = rd.scheme || (listener.https ? 'https' : 'http');
  var port;
  if (rd.port) port = rd.port;
  else if (rd.scheme) port = rd.scheme === 'https' ? 443 : 80;
  else port = listener.port;
  if ((scheme === 'http' && port === 80) || (scheme === 'https' && port === 443)) port = undefined;
  var path = rd.path ? modifyPath(rd.path, s.redirect.path, s.prefix) : s.redirect.path;
  return scheme + '://' + (rd.hostname || s.redirect.host) + (port !== undefined ? ':' + port : '') + path;
}

/** The response headers the gateway's own answer carries, every ResponseHeaderModifier applied. */
function finishOwn(r, s, extra) {
  var h = {};
  var order = [];
  var put = function (n, v) {
    var k = n.toLowerCase();
    if (!(k in h)) order.push(k);
    h[k] = v;
  };
  for (var i = 0; i < s.resp.length; i++) {
    var m = s.resp[i];
    var j;
    for (j = 0; j < m.set.length; j++) put(m.set[j].name, m.set[j].value);
    for (j = 0; j < m.add.length; j++) {
      var k = m.add[j].name.toLowerCase();
      put(k, k in h && h[k] !== undefined && h[k] !== '' ? h[k] + ',' + m.add[j].value : m.add[j].value);
    }
    for (j = 0; j < m.remove.length; j++) h[m.remove[j].toLowerCase()] = undefined;
  }
  for (i = 0; i < extra.length; i++) put(extra[i][0], extra[i][1]);
  for (i = 0; i < order.length; i++) if (h[order[i]] !== undefined) r.headersOut[order[i]] = h[order[i]];
}

function answer(r, grpc, code, message) {
  if (grpc) {
    r.headersOut['content-type'] = 'application/grpc';
    r.headersOut['grpc-status'] = String(code);
    r.headersOut['grpc-message'] = message;
    r.return(200);
    return;
  }
  r.headersOut['content-type'] = 'text/plain';
  r.return(code, message + '\n');
}

function pick(backends) {
  var total = 0;
  var i;
  for (i = 0; i < backends.length; i++) total += Math.max(0, backends[i].w);
  if (total <= 0) return -1;
  var x = Math.random() * total;
  for (i = 0; i < backends.length; i++) {
    var w = Math.max(0, backends[i].w);
    if (x < w) return i;
    x -= w;
  }
  for (i = backends.length - 1; i >= 0; i--) if (backends[i].w > 0) return i;
  return -1;
}

function http(r, T) {
  var port = T.ports[r.variables.sy_port_key];
  var grpc = String(header(r, 'content-type') || '').slice(0, 16) === 'application/grpc';
  if (!port) return answer(r, grpc, grpc ? 12 : 404, 'no route matches');
  var raw = r.variables.request_uri;
  var q = raw.indexOf('?');
  var req = { path: q < 0 ? raw : raw.slice(0, q), rawQuery: q < 0 ? undefined : raw.slice(q + 1), method: r.method, query: null };
  if (req.path === '') req.path = '/';
  var host = normalizeHost(header(r, 'host'));
  var listener;
  if (port.https) {
    var sni = normalizeHost(r.variables.ssl_server_name);
    var bySni = selectListener(port.listeners, sni);
    var byHost = selectListener(port.listeners, host || sni);
    if (!bySni || bySni !== byHost || bySni.tls) return answer(r, false, 421, 'misdirected request: this connection\'s server name selects another listener');
    listener = bySni;
  } else {
    listener = selectListener(port.listeners, host);
    if (!listener) return answer(r, grpc, grpc ? 12 : 404, 'no route matches');
  }
  // a gRPC call goes by the GRPCRoutes, or as the POST it is by the HTTPRoutes where they take its host
  var byGrpc = grpc && !grpcByHttp(listener, host);
  var entries = byGrpc ? listener.grpc : listener.http;
  var entry = null;
  for (var i = 0; i < entries.length; i++) {
    var e = entries[i];
    if (!hostMatches(e.h, host)) continue;
    if (byGrpc ? grpcAccepts(e.m, req, r) : httpAccepts(e.m, req, r)) {
      entry = e;
      break;
    }
  }
  if (!entry) return answer(r, grpc, grpc ? 12 : 404, 'no route matches');
  var rule = T.rules[entry.r];
  var refuse = function () { return answer(r, grpc, grpc ? 14 : 500, 'no usable backend'); };
  if (rule.invalid) return refuse();
  var s = {
    path: req.path, host: host, hostHeader: header(r, 'host') || '', pathRewritten: false,
    prefix: entry.m.p && entry.m.p.t === 'PathPrefix' ? entry.m.p.v : undefined,
    req: [], resp: [], mirrors: [], cors: null, redirect: null,
  };
  runFilters(rule.f, s, r, T);
  if (s.redirect) {
    finishOwn(r, s, []);
    return r.return(s.redirect.r.statusCode, locationOf(s, listener) + (req.rawQuery ? '?' + req.rawQuery : ''));
  }
  var origin = header(r, 'origin');
  if (s.cors && origin !== undefined && r.method === 'OPTIONS' && header(r, 'access-control-request-method') !== undefined) {
    finishOwn(r, s, corsHeaders(s.cors, r, true));
    return r.return(200);
  }
  var chosen = pick(rule.b);
  if (chosen < 0 || !rule.b[chosen].ok) {
    finishOwn(r, s, s.cors ? corsHeaders(s.cors, r, false) : []);
    return refuse();
  }
  var b = rule.b[chosen];
  if (b.f.length) {
    runFilters(b.f, s, r, T);
    if (s.redirect) {
      finishOwn(r, s, []);
      return r.return(s.redirect.r.statusCode, locationOf(s, listener) + (req.rawQuery ? '?' + req.rawQuery : ''));
    }
  }
  // the request headers the filters touch, each to the variable its location sends it from
  var touched = rule.h.concat(b.h);
  for (i = 0; i < touched.length; i++) {
    var name = touched[i];
    var v = header(r, name);
    for (var j = 0; j < s.req.length; j++) {
      var m = s.req[j];
      var k;
      for (k = 0; k < m.set.length; k++) if (m.set[k].name.toLowerCase() === name) v = m.set[k].value;
      for (k = 0; k < m.add.length; k++) if (m.add[k].name.toLowerCase() === name) v = v !== undefined && v !== '' ? v + ',' + m.add[k].value : m.add[k].value;
      for (k = 0; k < m.remove.length; k++) if (m.remove[k].toLowerCase() === name) v = undefined;
    }
    r.variables[T.hdr[name]] = v === undefined ? '' : v;
  }
  for (i = 0; i < s.mirrors.length; i++) {
    var mi = s.mirrors[i];
    r.variables[mi.v] = mi.p >= 100 || Math.random() * 100 < mi.p ? '1' : '';
  }
  var extra = s.cors ? corsHeaders(s.cors, r, false) : [];
  if (s.resp.length || extra.length) r.variables.sy_resp = JSON.stringify({ m: s.resp, x: extra });
  r.variables.sy_uri = (s.pathRewritten ? s.path : req.path) + (req.rawQuery !== undefined ? '?' + req.rawQuery : '');
  r.variables.sy_host = s.hostHeader;
  r.internalRedirect('@' + b.loc);
}

/** js_header_filter of a location whose rule changes response headers: the backend's answer finished. */
function respond(r) {
  var spec = r.variables.sy_resp;
  if (!spec) return;
  var d = JSON.parse(spec);
  for (var i = 0; i < d.m.length; i++) {
    var m = d.m[i];
    var j;
    for (j = 0; j < m.set.length; j++) r.headersOut[m.set[j].name] = m.set[j].value;
    for (j = 0; j < m.add.length; j++) {
      var cur = r.headersOut[m.add[j].name];
      r.headersOut[m.add[j].name] = cur !== undefined && cur !== '' ? cur + ',' + m.add[j].value : m.add[j].value;
    }
    for (j = 0; j < m.remove.length; j++) delete r.headersOut[m.remove[j]];
  }
  for (i = 0; i < d.x.length; i++) r.headersOut[d.x[i][0]] = d.x[i][1];
}

/** Stream js_preread of a cleartext port that takes both HTTP/1.1 and HTTP/2 with prior knowledge. */
function demux(s) {
  s.on('upload', function (data, flags) {
    if (data.length < 4 && !flags.last) return;
    s.variables.sy_h2 = data.slice(0, 4) === 'PRI ' ? '1' : '0';
    s.off('upload');
    s.done();
  });
}

export default { http: http, respond: respond, demux: demux };
