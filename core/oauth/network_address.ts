/**
 * Whether a URL's host is inside the network (loopback, private, link-local,
 * unique-local, carrier-grade NAT, unspecified): the hosts a Client ID Metadata
 * Document URL must not name, lest a client make the app fetch from its own
 * network. Literal addresses and reserved names are recognised; a public DNS
 * name that resolves inside the network is not (Web APIs cannot resolve names).
 *
 * @module
 */

/**
 * Whether a hostname (as `URL.hostname` gives it) is a loopback host.
 *
 * @param hostname The hostname.
 * @returns `true` for `localhost`, `*.localhost`, `127.0.0.0/8` and `::1`.
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, "");
  if (host === "localhost" || host.endsWith(".localhost") || host === "[::1]") return true;
  const v4 = ipv4(host);
  return v4 !== null && v4[0] === 127;
}

/**
 * Whether a hostname is inside the network (or loopback).
 *
 * @param hostname The hostname.
 * @returns `true` for loopback, private, link-local, CGNAT, unspecified and reserved internal names.
 */
export function isInternalHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, "");
  if (isLoopbackHost(host)) return true;
  if (!host.includes(".") && !host.startsWith("[")) return true; // a single label: resolved by local search domains
  if (/\.(local|internal|lan|home\.arpa|intranet|corp)$/.test(host)) return true;
  const v4 = ipv4(host);
  if (v4 !== null) {
    const [a, b] = v4;
    return a === 0 || a === 10 || (a === 100 && b >= 64 && b <= 127) || (a === 169 && b === 254) ||
      (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 198 && (b === 18 || b === 19)) ||
      a >= 224;
  }
  if (host.startsWith("[")) {
    const v6 = host.slice(1, -1);
    if (v6 === "::" || v6 === "::1") return true;
    const mapped = /^::ffff:(.+)$/.exec(v6);
    if (mapped) return true; // an IPv4-mapped address: refused rather than decoded
    return /^(fc|fd|fe[89ab])/.test(v6);
  }
  return false;
}

/** The four numbers of a dotted IPv4 address (URL parsing normalises other forms to it), or `null`. */
function ipv4(host: string): number[] | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  return m ? m.slice(1).map(Number) : null;
}
