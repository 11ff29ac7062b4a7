// Scopes (wildcards, embed, role intersection) and the 403 bodies that name what is missing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintToken } from '../../src/auth/mint-token.js';
import { expectErrorBody, startTestSandbox, type TestSandbox, tokenFor, WELL_KNOWN } from '../support/sandbox.js';
import { calls, createPair } from './support.js';

describe('scopes', () => {
  let sb: TestSandbox;
  let embedKey: string;
  let embedPairId: string;
  let editorKey: string;
  let editorPairId: string;
  beforeAll(async () => {
    sb = await startTestSandbox();
    const embed = await createPair(sb, sb.auth, { display_name: 'Embed key', role_ids: [WELL_KNOWN.roles.embed.id] });
    embedKey = embed.private_key;
    embedPairId = embed.id;
    const editor = await createPair(sb, sb.auth, { display_name: 'Buyers editor key', role_ids: [WELL_KNOWN.roles.buyersEditor.id] });
    editorKey = editor.private_key;
    editorPairId = editor.id;
  });
  afterAll(() => sb?.server.close());

  const adminWith = async (scopes: string[]) => `Bearer ${await tokenFor('admin', { scopes })}`;
  const keyWith = async (privateKeyPem: string, scopes: string[]) => `Bearer ${await mintToken({ privateKeyPem, scopes })}`;

  function expect403(res: { status: number; body: any }, message: RegExp): void {
    expect(res.status).toBe(403);
    expectErrorBody(res.body, 403, 'forbidden');
    expect(res.body.details).toEqual([]);
    expect(res.body.message).toMatch(message);
  }

  describe('wildcards', () => {
    it('*.read grants every read and no write', async () => {
      const auth = await adminWith(['*.read']);
      expect((await calls.read(sb, auth)).status).toBe(200);
      expect((await calls.listGiftCards(sb, auth)).status).toBe(200);
      expect((await calls.listPaymentMethods(sb, auth)).status).toBe(200);
      expect403(
        await calls.updateBuyer(sb, auth),
        /^Missing scope 'buyers.write': operation updateBuyer requires it, and the token scopes \[\*\.read\] do not include it\.$/,
      );
      expect403(await calls.googlePaySession(sb, auth), /Missing scope 'digital-wallets.write' or 'embed'/);
    });

    it('*.write grants every write and no read', async () => {
      const auth = await adminWith(['*.write']);
      expect((await calls.updateBuyer(sb, auth)).status).toBe(200);
      expect((await calls.createReport(sb, auth)).status).toBe(201);
      expect403(await calls.read(sb, auth), /Missing scope 'card-scheme-definitions.read'/);
    });

    it('a single scope grants only its operation', async () => {
      const auth = await adminWith(['buyers.write']);
      expect((await calls.updateBuyer(sb, auth)).status).toBe(200);
      expect403(await calls.createReport(sb, auth), /Missing scope 'reports.write': operation createReport requires it/);
      expect403(await calls.read(sb, auth), /Missing scope 'card-scheme-definitions.read'/);
    });

    it('an empty scope list grants nothing', async () => {
      expect403(await calls.read(sb, await adminWith([])), /token scopes \[\] do not include it/);
    });
  });

  describe('embed', () => {
    it('grants the operations that list it, nothing else', async () => {
      const auth = await adminWith(['embed']);
      expect((await calls.listPaymentMethods(sb, auth)).status).toBe(200);
      expect((await calls.googlePaySession(sb, auth)).status).toBe(200);
      expect403(await calls.listGiftCards(sb, auth), /Missing scope 'gift-cards.read'/);
      expect403(await calls.read(sb, auth), /Missing scope 'card-scheme-definitions.read'/);
    });

    it('a pair with only the embed role works with an embed token on embed operations', async () => {
      const auth = await keyWith(embedKey, ['embed']);
      const methods = await calls.listPaymentMethods(sb, auth);
      expect(methods.status).toBe(200);
      expect(methods.body.items.length).toBeGreaterThan(0);
      const session = await calls.googlePaySession(sb, auth);
      expect(session.status).toBe(200);
      expect(typeof session.body.token).toBe('string');
      expect403(await calls.listGiftCards(sb, auth), /Missing scope 'gift-cards.read'/);
    });

    it('wildcards in the token do not reach past the embed role', async () => {
      const auth = await keyWith(embedKey, ['*.read', '*.write']);
      expect403(
        await calls.listPaymentMethods(sb, auth),
        new RegExp(
          `^Missing scope 'payment-methods.read' or 'embed': operation listBuyerPaymentMethods requires it, and the token grants it but the roles of API key pair ${embedPairId} do not\\.$`,
        ),
      );
      expect403(await calls.listGiftCards(sb, auth), /roles of API key pair/);
    });
  });

  describe('effective scopes = token scopes the roles also grant', () => {
    it('a buyers-editor pair with a *.write token can update buyers but not create reports', async () => {
      const auth = await keyWith(editorKey, ['*.write']);
      expect((await calls.updateBuyer(sb, auth)).status).toBe(200);
      expect403(await calls.createReport(sb, auth), new RegExp(`Missing scope 'reports.write'.*roles of API key pair ${editorPairId} do not`));
      expect403(
        await sb.http
          .post('/api-key-pairs')
          .set('authorization', auth)
          .send({ display_name: 'x', role_ids: [WELL_KNOWN.roles.embed.id] }),
        /Missing scope 'api-key-pairs.write'/,
      );
    });

    it('the role grants payment-methods.read only when the token asks for it', async () => {
      expect403(await calls.listPaymentMethods(sb, await keyWith(editorKey, ['*.write'])), /token scopes \[\*\.write\] do not include it/);
      expect((await calls.listPaymentMethods(sb, await keyWith(editorKey, ['payment-methods.read']))).status).toBe(200);
      expect403(await calls.read(sb, await keyWith(editorKey, ['*.read'])), /Missing scope 'card-scheme-definitions.read'.*roles of API key pair/);
    });

    it('the read-only role refuses writes whatever the token says', async () => {
      const auth = `Bearer ${await tokenFor('read-only')}`;
      expect((await calls.read(sb, auth)).status).toBe(200);
      expect403(await calls.updateBuyer(sb, auth), new RegExp(`Missing scope 'buyers.write'.*roles of API key pair ${WELL_KNOWN.keyPairs.readOnly.id} do not`));
    });

    it('checks the scope before the body: a refused operation gets 403, not 400', async () => {
      const res = await sb.http
        .post('/reports')
        .set('authorization', await adminWith(['*.read']))
        .send({ nonsense: 1 });
      expect403(res, /Missing scope 'reports.write'/);
    });
  });
});
