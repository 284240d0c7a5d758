// Reads Iceberg tables with icebird (hyparam's JavaScript Iceberg reader, a
// reader adsync did not write) for adsync's Iceberg export tests, and prints
// every row's values as canonical strings, by the kinds the test gives.
// Usage: node icebird_read.mjs < request, a JSON '{"tables":[{"name","url","metadata","columns":[[name,kind]]}],"s3":{...}}'
//
// Two shims: fetch reads file:// URLs (with Range) and signs S3 requests to
// the test's server (AWS Signature V4); and icebird 0.3.1 decodes Avro's
// deflate codec with a gzip routine that fails on raw DEFLATE ("offset is
// out of bounds"), so a loader hook replaces that one call with
// zlib.inflateRawSync.
import { register } from 'node:module';
import { readFileSync } from 'node:fs';
import { createHash, createHmac } from 'node:crypto';
import { fileURLToPath } from 'node:url';

register('data:text/javascript,' + encodeURIComponent(`
export async function load(url, context, next) {
  const r = await next(url, context);
  if (url.includes('/icebird/src/avro/avro.read.js')) {
    const src = String(r.source).replace("import { gunzip } from 'hyparquet-compressors'",
      "import { inflateRawSync } from 'node:zlib'").replace('gunzip(data)', 'new Uint8Array(inflateRawSync(data))');
    return { ...r, source: src, shortCircuit: true };
  }
  return r;
}`), import.meta.url);

const req = JSON.parse(readFileSync(0, 'utf8'));
const s3 = req.s3;
const realFetch = globalThis.fetch;

function header(init, name) {
  const h = init?.headers;
  if (!h) return undefined;
  if (typeof h.get === 'function') return h.get(name) ?? undefined;
  for (const k of Object.keys(h)) if (k.toLowerCase() === name.toLowerCase()) return h[k];
}

function fileResponse(path, init) {
  const buf = readFileSync(path);
  const range = header(init, 'range');
  if (range) {
    const m = /bytes=(\d+)-(\d*)/.exec(range);
    const start = Number(m[1]);
    const end = m[2] === '' ? buf.length - 1 : Number(m[2]);
    return new Response(buf.subarray(start, end + 1), { status: 206 });
  }
  return new Response(buf, { status: 200 });
}

const sha = (s) => createHash('sha256').update(s).digest('hex');
const hmac = (k, s) => createHmac('sha256', k).update(s).digest();

// signedS3 fetches bucket/key from the test's S3 server, signed (SigV4).
function signedS3(bucket, key, init) {
  const u = new URL(s3.endpoint);
  const path = '/' + bucket + '/' + key.split('/').map(encodeURIComponent).join('/');
  const now = new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d+/, '');
  const day = now.slice(0, 8);
  const headers = { host: u.host, 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD', 'x-amz-date': now };
  const range = header(init, 'range');
  if (range) headers.range = range;
  const names = Object.keys(headers).sort();
  const canonical = ['GET', path, '', ...names.map((n) => n + ':' + headers[n]), '', names.join(';'), 'UNSIGNED-PAYLOAD'].join('\n');
  const scope = `${day}/${s3.region}/s3/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', now, scope, sha(canonical)].join('\n');
  let k = hmac('AWS4' + s3.secret, day);
  k = hmac(hmac(hmac(k, s3.region), 's3'), 'aws4_request');
  const sig = createHmac('sha256', k).update(toSign).digest('hex');
  headers.authorization = `AWS4-HMAC-SHA256 Credential=${s3.key}/${scope}, SignedHeaders=${names.join(';')}, Signature=${sig}`;
  delete headers.host;
  return realFetch(u.origin + path, { headers });
}

globalThis.fetch = async (url, init) => {
  const s = String(url);
  if (s.startsWith('file://')) return fileResponse(fileURLToPath(s), init);
  const m = /^https:\/\/([^./]+)\.s3\.amazonaws\.com\/(.*)$/.exec(s);
  if (m && s3) return signedS3(m[1], decodeURIComponent(m[2]), init);
  return realFetch(url, init);
};

const { icebergRead } = await import('icebird');

function canonical(v, kind) {
  if (v === null || v === undefined) return null;
  switch (kind) {
    case 'timestamp': return String(v instanceof Date ? v.getTime() : Math.floor(Number(v) / 1000));
    case 'date': return (v instanceof Date ? v : new Date(Number(v) * 86400000)).toISOString().slice(0, 10);
    case 'micros': return String(Math.round(Number(v) * 1e6));
    case 'list': return v.map(String).join('\u001f');
    default: return String(v);
  }
}

const out = {};
for (const t of req.tables) {
  let rows;
  try {
    rows = await icebergRead({ tableUrl: t.url, metadataFileName: t.metadata });
  } catch (e) {
    if (/No current snapshot|No data manifest/.test(e.message)) rows = [];
    else { console.error(`${t.name}: ${e.stack}`); process.exit(1); }
  }
  out[t.name] = rows.map((r) => t.columns.map(([name, kind]) => canonical(r[name], kind)));
}
process.stdout.write(JSON.stringify(out));
