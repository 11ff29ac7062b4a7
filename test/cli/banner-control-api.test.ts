// The banner's warning about who can reach the control API: the image runs with --control-api open
// on 0.0.0.0 and must say so at every start; with an admin token it says the token guards it.
import { describe, expect, it } from 'vitest';
import { bannerWarnings, formatBanner } from '../../src/cli/banner.js';
import { defaultConfig, type SandboxConfig } from '../../src/config.js';

const info = (config: Partial<SandboxConfig>) => ({
  version: '0.1.0',
  url: `http://${config.host ?? '127.0.0.1'}:4010`,
  config: defaultConfig(config),
  keyFile: '/app/fixtures/keys/admin.pem',
  configFile: null,
  watching: [],
});

describe('the banner and the control API', () => {
  it('warns that an open control API off loopback is anyone’s who reaches the port', () => {
    const open = info({ host: '0.0.0.0', controlApi: 'open' });
    expect(bannerWarnings(open)).toEqual([
      'listening on 0.0.0.0 with --control-api open: whoever reaches this port can read and reset every namespace; publish it on 127.0.0.1 only, or set --admin-token',
    ]);
    expect(formatBanner(open)).toMatch(/\n {2}control +http:\/\/127\.0\.0\.1:4010\/_sandbox \(open: no token\)\n/);
  });

  it('says the token guards it when one is set, and nothing on loopback', () => {
    const guarded = info({ host: '0.0.0.0', controlApi: 'open', adminToken: 'x'.repeat(16) });
    expect(bannerWarnings(guarded)).toEqual(['listening on 0.0.0.0: reachable from other machines (the control API needs the admin token)']);
    expect(formatBanner(guarded)).toMatch(/\n {2}control +http:\/\/127\.0\.0\.1:4010\/_sandbox \(needs the admin token\)\n/);
    expect(bannerWarnings(info({ controlApi: 'open' }))).toEqual([]);
    expect(formatBanner(info({}))).toMatch(/\n {2}control +http:\/\/127\.0\.0\.1:4010\/_sandbox\n/);
  });

  it('warns when every origin may call the API (--cors-origin *)', () => {
    expect(bannerWarnings(info({ corsOrigins: ['*'] }))).toEqual([
      '--cors-origin *: every web page the browser opens may call the API (a page can sign its own token with the published keys); name your origins instead',
    ]);
    expect(formatBanner(info({ corsOrigins: ['*'] }))).toContain('\nWARNING: --cors-origin *: every web page');
    expect(bannerWarnings(info({ corsOrigins: ['https://checkout.example'] }))).toEqual([]);
  });
});
