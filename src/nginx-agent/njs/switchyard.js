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
// A rule with an ExternalAuth filter first asks the agent's bridge (a subrequest to
// /_switchyard/auth, which the agent answers from a unix socket after asking the authorization
// server as the reference proxy does): nothing else happens unless the server allows the request.
// A rule that keeps cookie sessions resumes the session its cookie names (the cookie of
// src/core/session/cookie.ts, so that resolve and the reference proxy read it alike), or begins one
// by weight; the header filter sets the cookie on the answer.
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
 * one claims it and no GRPCRoute does.
 */
function grpcByHttp(listener, host) {
  var i;
  for (i = 0; i < listener.grpc.length; i++) if (hostMatches(listener.grpc[i].h, host)) return false;
  for (i = 0; i < listener.http.length; i++) if (hostMatches(listener.http[i].h, host)) return true;
  return false;
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

// ---- cookie sessions (as src/core/session/cookie.ts) ----

var B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** base64url of a string's UTF-8 bytes, without padding. */
function toBase64Url(text) {
  var bytes = [];
  for (var i = 0; i < text.length; i++) {
    var c = text.charCodeAt(i);
    if (c < 0x80) bytes.push(c);
    else if (c < 0x800) bytes.push(0xc0 | (c >> 6), 0x80 | (c & 63));
    else bytes.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
  }
  var out = '';
  for (i = 0; i < bytes.length; i += 3) {
    var n = (bytes[i] << 16) | ((bytes[i + 1] || 0) << 8) | (bytes[i + 2] || 0);
    out += B64.charAt((n >> 18) & 63) + B64.charAt((n >> 12) & 63);
    if (i + 1 < bytes.length) out += B64.charAt((n >> 6) & 63);
    if (i + 2 < bytes.length) out += B64.charAt(n & 63);
  }
  return out;
}

/** The text of a base64url value, or null (a value that is not ASCII names no backend here). */
function fromBase64Url(value) {
  var out = '';
  var bits = 0;
  var acc = 0;
  for (var i = 0; i < value.length; i++) {
    var ch = value.charAt(i);
    var v = B64.indexOf(ch === '+' ? '-' : ch === '/' ? '_' : ch);
    if (ch === '=') break;
    if (v < 0) return null;
    acc = (acc << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      var byte = (acc >> bits) & 255;
      if (byte >= 0x80) return null;
      out += String.fromCharCode(byte);
    }
  }
  return out;
}

function decodeSession(value) {
  if (!value || value.length > 1024) return null;
  try {
    var text = fromBase64Url(value);
    if (text === null) return null;
    var a = JSON.parse(text);
    if (!Array.isArray(a) || typeof a[0] !== 'string' || typeof a[1] !== 'string' || !Number.isInteger(a[2]) || !Number.isInteger(a[3])) return null;
    return { backend: a[0], endpoint: a[1], started: a[2], used: a[3] };
  } catch (e) {
    return null;
  }
}

function cookieValue(raw, name) {
  if (!raw) return undefined;
  var parts = String(raw).split(/[;,]/);
  for (var i = 0; i < parts.length; i++) {
    var eq = parts[i].indexOf('=');
    if (eq > 0 && parts[i].slice(0, eq).trim() === name) return parts[i].slice(eq + 1).trim().replace(/^"(.*)"$/, '$1');
  }
  return undefined;
}

/** The backend the request's session cookie keeps it on (usable, weighted, within the timeouts), or null. */
function resumedSession(rule, r) {
  var sp = rule.sp;
  var v = decodeSession(cookieValue(header(r, 'cookie'), sp.n));
  if (!v) return null;
  var now = Math.floor(Date.now() / 1000);
  if (sp.a !== undefined && now - v.started >= sp.a) return null;
  if (sp.i !== undefined && now - v.used >= sp.i) return null;
  for (var i = 0; i < rule.b.length; i++) if (rule.b[i].ok && rule.b[i].w > 0 && rule.b[i].k === v.backend) return { index: i, value: v };
  return null;
}

/** The peer of a rule that keeps sessions (the session's endpoint while nginx still lists it, else the upstream), and what the header filter needs. */
function sessionPeer(r, rule, b, kept) {
  var peer = b.up;
  var endpoint = '';
  if (kept && kept.value.endpoint) {
    r.variables.sy_pin = b.k + '|' + kept.value.endpoint;
    if (r.variables.sy_pin_ok === '1') peer = endpoint = kept.value.endpoint;
  }
  r.variables.sy_peer = peer;
  var sp = rule.sp;
  r.variables.sy_sess = JSON.stringify({ n: sp.n, p: sp.p, l: sp.l, a: sp.a, k: b.k, e: endpoint, s: endpoint ? kept.value.started : 0 });
}

/** Set-Cookie of the session on the answer: the backend and the endpoint that answered, when it began, now. */
function sessionCookie(r, s) {
  var addrs = String(r.variables.upstream_addr || '').split(/, | : /);
  var endpoint = addrs[addrs.length - 1].trim();
  if (!endpoint || endpoint.slice(0, 5) === 'unix:') return;
  var now = Math.floor(Date.now() / 1000);
  var started = s.e && s.e === endpoint ? s.s : now;
  var parts = [s.n + '=' + toBase64Url(JSON.stringify([s.k, endpoint, started, now])), 'Path=' + s.p, 'HttpOnly'];
  if (s.l === 'Permanent') parts.push('Max-Age=' + (s.a !== undefined && s.a !== null ? Math.max(0, s.a - (now - started)) : 86400));
  var cur = r.headersOut['Set-Cookie'];
  var list = cur === undefined ? [] : Array.isArray(cur) ? cur : [cur];
  list.push(parts.join('; '));
  r.headersOut['Set-Cookie'] = list;
}

// ---- ExternalAuth (the agent's bridge asks the server: src/proxy/external-auth.ts) ----

/** Request headers nginx frames itself, or that end at this hop. */
var NOT_PASSED = { host: 1, connection: 1, 'keep-alive': 1, 'proxy-connection': 1, 'transfer-encoding': 1, upgrade: 1, te: 1, trailer: 1, 'http2-settings': 1, 'content-length': 1, expect: 1 };
var TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
var SAFE_VALUE = /^[^\r\n\0]*$/;

function authOf(filters) {
  for (var i = 0; i < filters.length; i++) if (filters[i].type === 'ExternalAuth') return filters[i].auth;
  return null;
}

function utf8Length(s) {
  var n = 0;
  for (var i = 0; i < s.length; i++) {
    var c = s.charCodeAt(i);
    n += c < 0x80 ? 1 : c < 0x800 ? 2 : c >= 0xd800 && c < 0xdc00 ? (i++, 4) : 3;
  }
  return n;
}

/** The server's denial to the client as it came: status, headers, body. */
function denied(r, d) {
  var st = Number(d.status) || 403;
  if (st < 200 || st > 599) st = 403;
  for (var k in d.headers) {
    if (!TOKEN.test(k) || !SAFE_VALUE.test(String(d.headers[k])) || NOT_PASSED[k.toLowerCase()]) continue;
    r.headersOut[k] = String(d.headers[k]);
  }
  var body = String(d.body || '');
  r.status = st;
  r.headersOut['Content-Length'] = String(utf8Length(body));
  r.sendHeader();
  if (body) r.send(body);
  r.finish();
}

/**
 * forwardBody: the body's first `max` bytes (and one more, to tell a longer body). nginx has read the
 * whole body before the dispatch runs; on a port with forwardBody it is in a temporary file nginx
 * keeps until the request is over (client_body_in_file_only clean), of which only the first bytes
 * are read; a body in memory is taken as it is.
 */
function bodyHead(r, max) {
  var buf;
  try {
    buf = r.requestBuffer;
  } catch (e) {
    buf = undefined;
    var file = r.variables.request_body_file;
    if (file) {
      var fs = require('fs');
      var fd = fs.openSync(file, 'r');
      try {
        var part = Buffer.alloc(max + 1);
        buf = part.slice(0, fs.readSync(fd, part, 0, max + 1, 0));
      } finally {
        fs.closeSync(fd);
      }
    }
  }
  if (!buf) buf = Buffer.alloc(0);
  return buf.length > max ? { bytes: buf.slice(0, max), partial: true } : { bytes: buf, partial: false };
}

/** Asks the bridge; calls then(headers to add) when the server allows the request, answers the client otherwise. */
function authorize(r, cfg, req, https, then) {
  var raw = [];
  for (var i = 0; i < r.rawHeadersIn.length; i++) raw.push([r.rawHeadersIn[i][0], r.rawHeadersIn[i][1]]);
  var msg = {
    cfg: cfg, method: r.method, path: req.path, authority: header(r, 'host') || '', scheme: https ? 'https' : 'http',
    httpVersion: r.httpVersion, headers: raw, id: header(r, 'x-request-id') || r.variables.request_id,
  };
  if (req.rawQuery !== undefined) msg.rawQuery = req.rawQuery;
  if (cfg.forwardBodyMaxSize > 0) {
    var head = bodyHead(r, cfg.forwardBodyMaxSize);
    msg.body = head.bytes.toString('base64');
    msg.bodyPartial = head.partial;
    var length = Number(header(r, 'content-length'));
    msg.bodySize = length >= 0 ? length : head.bytes.length;
  }
  r.subrequest('/_switchyard/auth', { method: 'POST', body: JSON.stringify(msg) }, function (reply) {
    var d = null;
    try {
      if (reply.status === 200) d = JSON.parse(reply.responseText);
    } catch (e) {
      d = null;
    }
    if (!d || typeof d.allow !== 'boolean') d = { allow: false, status: 403, headers: { 'content-type': 'text/plain' }, body: 'the authorization server could not be asked (no answer from the bridge)\n' };
    if (!d.allow) return denied(r, d);
    then(d.headers || {});
  });
}

/** $sy_hx: the request's header lines after Host (client headers, an allowance's replacing theirs), filters' own headers left to their variables. */
function headerBlock(r, touched, added) {
  var skip = {};
  var i;
  for (i = 0; i < touched.length; i++) skip[touched[i]] = 1;
  var addedLower = {};
  for (var k in added) if (TOKEN.test(k) && SAFE_VALUE.test(String(added[k]))) addedLower[k.toLowerCase()] = [k, String(added[k])];
  var out = '';
  var cookies = [];
  for (i = 0; i < r.rawHeadersIn.length; i++) {
    var name = r.rawHeadersIn[i][0];
    var lower = name.toLowerCase();
    if (NOT_PASSED[lower] || skip[lower] || addedLower[lower]) continue;
    // HTTP/2 sends cookies as crumbs: one Cookie line for HTTP/1.1
    if (lower === 'cookie') cookies.push(r.rawHeadersIn[i][1]);
    else out += '\r\n' + name + ': ' + r.rawHeadersIn[i][1];
  }
  if (cookies.length) out += '\r\nCookie: ' + cookies.join('; ');
  for (k in addedLower) if (!skip[k] && !NOT_PASSED[k]) out += '\r\n' + addedLower[k][0] + ': ' + addedLower[k][1];
  return out;
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
  if (rule.invalid) return answer(r, grpc, grpc ? 14 : 500, 'no usable backend');
  var auth = authOf(rule.f);
  if (!auth) return carry(r, T, req, host, listener, entry, rule, grpc, null);
  // an unusable authorization server: the filter cannot be applied and is never skipped
  if (!auth.ok) return answer(r, grpc, grpc ? 14 : 500, 'no usable backend');
  authorize(r, auth, req, port.https, function (added) {
    carry(r, T, req, host, listener, entry, rule, grpc, added);
  });
}

/** The matched rule carried out; `added`: an allowance's headers (a rule with ExternalAuth), else null. */
function carry(r, T, req, host, listener, entry, rule, grpc, added) {
  var i;
  var refuse = function () { return answer(r, grpc, grpc ? 14 : 500, 'no usable backend'); };
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
  var kept = rule.sp ? resumedSession(rule, r) : null;
  var chosen = kept ? kept.index : pick(rule.b);
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
    if (added) for (var an in added) if (an.toLowerCase() === name && SAFE_VALUE.test(String(added[an]))) v = String(added[an]);
    r.variables[T.hdr[name]] = v === undefined ? '' : v;
  }
  if (added) r.variables.sy_hx = headerBlock(r, touched, added);
  if (rule.sp) sessionPeer(r, rule, b, kept && kept.index === chosen ? kept : null);
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
  var sess = r.variables.sy_sess;
  if (sess) sessionCookie(r, JSON.parse(sess));
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
