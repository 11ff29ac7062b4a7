// Dot segments ('.' and '..', literal or percent-encoded as %2e) in the raw request target. The URL
// parser resolves them before the app sees the path, so /ns/hh/%2e%2e/jj/buyers/... would reach the
// app as /ns/jj/buyers/...: served under namespace jj while a proxy routing by namespace hashes the
// raw path's hh (deploy/haproxy.cfg), and while the client named hh. The API has no path with dot
// segments, so such a target is refused before it is parsed, wherever its dot segments are.
import { ApiError } from '../errors/api-error.js';

/** A '.' or '..' segment, either dot possibly written %2e, followed by the end of the path or a '/'. */
const DOT_SEGMENT = /(?:^|\/)(?:\.|%2e){1,2}(?:\/|$)/i;

/** The path of a request target (origin form /a/b?q, or absolute form http://h/a/b?q), without query or fragment. */
function pathOf(target: string): string {
  let start = 0;
  if (target.charCodeAt(0) !== 47) {
    const scheme = target.indexOf('://');
    start = scheme < 0 ? 0 : target.indexOf('/', scheme + 3);
    if (start < 0) return '';
  }
  let end = start;
  for (; end < target.length; end++) {
    const char = target.charCodeAt(end);
    if (char === 63 || char === 35) break; // ? #
  }
  return target.slice(start, end);
}

/** Whether the path of a raw request target holds a dot segment. Two scans of the target for most requests (no '.' nor '%2'). */
export function hasDotSegment(target: string): boolean {
  if (target.indexOf('.') < 0 && target.indexOf('%2') < 0) return false;
  return DOT_SEGMENT.test(pathOf(target));
}

/** The 400 of a target whose path holds a dot segment. */
export function dotSegmentError(target: string): ApiError {
  const path = pathOf(target);
  const shown = path.length > 120 ? `${path.slice(0, 120)}...` : path;
  return ApiError.badRequest(
    `The request path ${shown} holds a dot segment ('.' or '..', or either written %2e): send the path without it. No path of the API has one, and the path is read as written (the /ns/{name}/ prefix names the namespace, and a proxy routing by namespace hashes the raw path), so it is refused rather than resolved to another path or namespace.`,
    [{ location: 'path', pointer: '/', type: 'string_pattern_mismatch', message: "A path segment may not be '.' or '..' (nor %2e, %2e%2e)." }],
  );
}
