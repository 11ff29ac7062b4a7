// The Webhooks page over HTTP, against a real receiver: subscriptions with the actions that name
// their records API and webhook control routes, deliveries with their attempts (filtered, one
// opened, its retry), the part the page refreshes on its own, the trigger and behaviour forms; the
// Clock page's "due next" with a webhook retry; the --forward-webhooks-to target.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, type TestSandbox, WELL_KNOWN } from '../support/sandbox.js';
import { eventually, type Receiver, subscribeReceiver, useSandboxWithReceiver } from '../webhooks/receiver.js';

const BUYER = WELL_KNOWN.buyers.default.id;
const T0 = '2030-01-15T10:00:00.000Z';

describe('the Webhooks page', () => {
  let sb: TestSandbox;
  let receiver: Receiver;
  useSandboxWithReceiver((started) => ({ sb, receiver } = started));

  const part = async (ns: string, query = '', fragment = '') => {
    const res = await sb.http.get(`/ns/${ns}/_sandbox/console/parts/webhooks${fragment}${query}`);
    expect(res.status).toBe(200);
    return res.text;
  };
  const deliveries = async (ns: string) => (await sb.http.get(`/ns/${ns}/_sandbox/webhooks/deliveries`).expect(200)).body.items;

  it('lists subscriptions with the actions the control API offers, and subscribes through the records API', async () => {
    await sb.http.put('/ns/w1/_sandbox/clock').send({ now: T0, frozen: true }).expect(200);
    const subscription = (
      await sb.http.post('/ns/w1/_sandbox/records/webhook_subscriptions').send({ url: receiver.url, merchant_account_id: 'merchant-two' }).expect(201)
    ).body;
    receiver.trust(subscription.secret);
    const html = await part('w1');
    const row = new RegExp(`<tr data-subscription="${subscription.id}">(.*?)</tr>`, 's').exec(html)?.[1] ?? '';
    expect(row).toContain(`<th scope="row" class="url">${receiver.url}<br/><span class="muted">${subscription.id}</span></th><td>merchant-two</td>`);
    expect(row).toContain('<span class="badge status-succeeded">active</span>');
    // The secret is masked (its last 4 characters), with Show and Copy; the whole of it is in the page, hidden.
    expect(row).toContain(
      `<code class="masked">••••${subscription.secret.slice(-4)}</code><code class="secret" id="secret-${subscription.id}" hidden="">${subscription.secret}</code>`,
    );
    expect(row).toContain(`aria-label="Show the signing secret of the subscription to ${receiver.url}">Show</button>`);
    expect(row).toContain(`data-copy="#secret-${subscription.id}" aria-label="Copy the signing secret of the subscription to ${receiver.url}">Copy</button>`);
    const records = `/ns/w1/_sandbox/records/webhook_subscriptions/${subscription.id}`;
    expect(row).toContain(`aria-label="Deactivate the subscription to ${receiver.url}" data-api="PATCH ${records}" data-json="{&quot;active&quot;:false}"`);
    expect(row).toContain(`data-api="POST /ns/w1/_sandbox/webhooks/subscriptions/${subscription.id}/rotate-secret" data-json="{}"`);
    expect(row).toContain(`aria-label="Delete the subscription to ${receiver.url}" data-api="DELETE ${records}"`);
    // The seeded subscriptions are inactive, and offered to be activated.
    const seeded = WELL_KNOWN.webhookSubscriptions.default.id;
    expect(html).toMatch(new RegExp(`<tr data-subscription="${seeded}">.*?inactive.*?data-json="\\{&quot;active&quot;:true\\}"`, 's'));
    expect(html).toContain('<form id="subscribe-form" class="api-form inline" data-api="POST /ns/w1/_sandbox/records/webhook_subscriptions"');
    expect(html).not.toContain('id="forward"');
    expect(html).toContain('<p class="note">No webhook delivery yet');

    // After a rotation the previous secret is said to sign too, until when (namespace clock).
    await sb.http.post(`/ns/w1/_sandbox/webhooks/subscriptions/${subscription.id}/rotate-secret`).send({ keep_previous_seconds: 60 }).expect(200);
    expect(await part('w1')).toContain('(the previous one signs too until <time datetime="2030-01-15T10:01:00.000Z">2030-01-15 10:01:00Z</time>)');
  });

  it('shows deliveries with their attempts, one opened with its retry, filtered, and the due retry on the Clock page', async () => {
    await sb.http.put('/ns/w2/_sandbox/clock').send({ now: T0, frozen: true }).expect(200);
    const subscription = (await sb.http.post('/ns/w2/_sandbox/records/webhook_subscriptions').send({ url: receiver.url }).expect(201)).body;
    receiver.trust(subscription.secret);
    await sb.http.put(`/ns/w2/buyers/${BUYER}`).set('authorization', sb.auth).send({ display_name: 'Hooked' }).expect(200);
    const [ok] = await eventually(
      () => deliveries('w2'),
      (items) => items[0]?.status === 'succeeded',
    );
    receiver.answers = [{ status: 500, body: 'receiver down' }];
    await sb.http.post('/ns/w2/_sandbox/events').send({ name: 'buyer.created' }).expect(201);
    const [failing] = await eventually(
      () => deliveries('w2'),
      (items) => items.length === 2 && items[0].attempts.length === 1,
    );
    receiver.answers = [{ status: 200, body: 'ok' }];
    expect(failing).toMatchObject({ event_name: 'buyer.created', status: 'pending', next_attempt_at: '2030-01-15T10:01:00.000Z' });

    const html = await part('w2');
    expect(html).toContain('<p id="deliveries-count">2 deliveries, newest first; 1 waiting or in flight.</p>');
    const rows = [...html.matchAll(/<tr( aria-selected="true")? data-delivery="([^"]+)">(.*?)<\/tr>/gs)].map((m) => ({ id: m[2], html: m[3] }));
    expect(rows.map((r) => r.id)).toEqual([failing.id, ok.id]);
    expect(rows[0].html).toContain(
      `<a href="/ns/w2/_sandbox/console/webhooks?delivery=${failing.id}" aria-label="2030-01-15 10:00:00Z: open the delivery of buyer.created">`,
    );
    expect(rows[0].html).toContain(
      `<td class="url">${receiver.url}</td><td><span class="badge status-pending">pending</span></td><td class="num">1, last: 500</td>`,
    );
    expect(rows[1].html).toContain('<code>buyer.updated</code>');
    expect(rows[1].html).toContain('<td class="num">1, last: 200</td>');
    expect(html).toContain('<p class="note">Open a delivery to see its attempts and send it again.</p>');
    // The part the page reads again by itself.
    expect(html).toContain('<div id="deliveries" data-part="/ns/w2/_sandbox/console/parts/webhooks/deliveries">');

    const opened = await part('w2', `?delivery=${failing.id}`, '/deliveries');
    expect(opened).toContain(`<tr aria-selected="true" data-delivery="${failing.id}">`);
    expect(opened).toContain('<h3 id="delivery-title" tabindex="-1"><code>buyer.created</code> <span class="badge status-pending">pending</span></h3>');
    expect(opened).toContain(`data-api="POST /ns/w2/_sandbox/webhooks/deliveries/${failing.id}/retry"`);
    const attempts = /<table id="attempts-table".*?<tbody>(.*?)<\/tbody>/s.exec(opened)?.[1] ?? '';
    expect(attempts).toContain('<td class="num">1</td>');
    expect(attempts).toContain('<span class="badge status-5xx">500</span>');
    expect(attempts).toContain('<code class="excerpt">receiver down</code>');
    expect(attempts).toContain(`<td>${failing.attempts[0].error}</td>`);
    expect(opened).toContain('aria-label="The notification&#39;s body"');
    expect(opened).toContain(`&quot;id&quot;: &quot;${failing.event_id}&quot;`);

    // Sent again through the route the button names: a second, manual attempt.
    await sb.http.post(`/ns/w2/_sandbox/webhooks/deliveries/${failing.id}/retry`).expect(202);
    await eventually(
      () => sb.http.get(`/ns/w2/_sandbox/webhooks/deliveries/${failing.id}`).then((r) => r.body),
      (d) => d.status === 'succeeded',
    );
    const after = await part('w2', `?delivery=${failing.id}`, '/deliveries');
    expect(after).toContain('<td class="num">2<span class="muted"> (sent again)</span></td>');
    expect(after).toContain('<span class="badge status-2xx">200</span>');

    // Filters: by outcome and event; a value the control API does not take is left out.
    const succeeded = await part('w2', '?outcome=succeeded&event_name=buyer.updated', '/deliveries');
    expect([...succeeded.matchAll(/data-delivery="([^"]+)"/g)].map((m) => m[1])).toEqual([ok.id]);
    const bogus = await part('w2', '?outcome=bogus', '/deliveries');
    expect(bogus).toContain('2 deliveries, newest first');
    const gone = await part('w2', '?delivery=no-such-delivery', '/deliveries');
    expect(gone).toContain('There is no delivery no-such-delivery in this namespace (any more).');
    expect(await part('w2', `?subscription_id=${subscription.id}&outcome=failed`, '/deliveries')).toContain('No delivery matches.');
  });

  it("lists a waiting webhook retry in the Clock page's due next", async () => {
    await sb.http.put('/ns/w3/_sandbox/clock').send({ now: T0, frozen: true }).expect(200);
    receiver.answers = [{ status: 503, body: 'later' }];
    await subscribeReceiver(sb, receiver, '/ns/w3');
    await sb.http.post('/ns/w3/_sandbox/events').send({ name: 'buyer.updated' }).expect(201);
    const [delivery] = await eventually(
      () => deliveries('w3'),
      (items) => items[0]?.attempts.length === 1,
    );
    receiver.answers = [{ status: 200, body: 'ok' }];
    const clock = (await sb.http.get('/ns/w3/_sandbox/console/parts/clock').expect(200)).text;
    expect(clock).toContain(
      `<td><time datetime="2030-01-15T10:01:00.000Z">2030-01-15 10:01:00Z</time> <span class="muted">(in 1 min)</span></td><td>Webhook buyer.updated to ${receiver.url}: retry, attempt 2</td><td><a href="/ns/w3/_sandbox/console/webhooks?delivery=${delivery.id}">${delivery.id}</a></td>`,
    );
  });

  it('offers every event to trigger, and the delivery behaviour as it is', async () => {
    await sb.http.put('/ns/w4/_sandbox/webhooks/behaviour').send({ delay_ms: 2500, duplicate: true, reorder: false }).expect(200);
    const html = await part('w4');
    const events = (await sb.http.get('/ns/w4/_sandbox/webhooks').expect(200)).body.events as string[];
    const options = /<select id="trigger-event"[^>]*>(.*?)<\/select>/s.exec(html)?.[1] ?? '';
    expect([...options.matchAll(/<option value="([^"]+)"/g)].map((m) => m[1])).toEqual(events);
    expect(options).toContain('<option value="buyer.updated" selected="">');
    expect(html).toContain(
      '<form id="trigger-form" class="api-form" data-api="POST /ns/w4/_sandbox/events" data-done="Event {event.name} sent: {deliveries.length} deliveries."',
    );
    expect(html).toContain('<form id="behaviour-form" class="api-form" data-api="PUT /ns/w4/_sandbox/webhooks/behaviour"');
    expect(html).toContain('<input id="behaviour-delay" name="delay_ms" type="number" value="2500" data-type="number"');
    expect(html).toContain('<input type="checkbox" id="behaviour-duplicate" name="duplicate" checked=""/>');
    expect(html).toContain('<input type="checkbox" id="behaviour-reorder" name="reorder"/>');
    expect(html).toContain('data-api="DELETE /ns/w4/_sandbox/webhooks/behaviour"');
    expect(html).toContain('retried after 1 min, 5 min, 30 min, 2 h, 5 h, 10 h, 1 d of namespace time, 8 attempts in all; an attempt times out after 10 s.');
  });
});

describe('the Webhooks page with --forward-webhooks-to', () => {
  let sb: TestSandbox;
  beforeAll(async () => {
    sb = await startTestSandbox({ forwardWebhooksTo: 'http://127.0.0.1:9/forward' });
  });
  afterAll(() => sb.server.close());

  it('names the forward target and its secret', async () => {
    const overview = (await sb.http.get('/_sandbox/webhooks').expect(200)).body;
    const html = (await sb.http.get('/_sandbox/console/parts/webhooks').expect(200)).text;
    expect(html).toContain(
      `<p id="forward">Every event of every merchant account also goes to <code>http://127.0.0.1:9/forward</code> (<code>--forward-webhooks-to</code>), signed with <span class="secret-box"><code class="masked">••••${overview.forward.secret.slice(-4)}</code><code class="secret" id="forward-secret" hidden="">${overview.forward.secret}</code>`,
    );
  });
});
