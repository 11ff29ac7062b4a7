// Every HTML page the sandbox serves (/docs, /docs/admin, the console, the hosted pages) refuses to
// be framed by another origin: a framed page can be clicked through by a page on top of it (two
// clicks in a framed "Try it out" of /docs/admin reset the sandbox). CSP frame-ancestors for
// browsers that know it, X-Frame-Options for the others. A page with a stricter rule of its own
// (the hosted pages: 'none') keeps it. Only the routes that serve HTML run this step.
import type { Step } from './pipeline.js';

export const FRAME_ANCESTORS = "frame-ancestors 'self'";

/** Sets the framing headers on an HTML answer that has none. */
export function refuseFraming(): Step {
  return {
    name: 'refuse framing',
    before(call) {
      return async (rest) => {
        await rest();
        const { headers } = call.context.res;
        if (!headers.get('content-type')?.startsWith('text/html')) return;
        const policy = headers.get('content-security-policy');
        if (!policy) headers.set('content-security-policy', FRAME_ANCESTORS);
        else if (!policy.includes('frame-ancestors')) headers.set('content-security-policy', `${policy}; ${FRAME_ANCESTORS}`);
        if (!headers.has('x-frame-options')) headers.set('x-frame-options', 'SAMEORIGIN');
      };
    },
  };
}
