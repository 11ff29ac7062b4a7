// The Node snippet of docs/containers.md ("Testcontainers"), shown there word for word from
// `snippet-start` to `snippet-end`: test/container/testcontainers.test.ts runs it against the
// image and checks that the page still shows this text.
// snippet-start
import { randomUUID } from 'node:crypto';
import { GenericContainer, type StartedTestContainer, Wait } from 'testcontainers';

/** Once per test file (beforeAll): the sandbox, ready when its health route answers 200. */
export function startSandbox(): Promise<StartedTestContainer> {
  return new GenericContainer('payments-sandbox:latest')
    .withExposedPorts(4010)
    .withWaitStrategy(Wait.forHttp('/_sandbox/health', 4010).forStatusCode(200))
    .start();
}

/** Per test: a namespace of its own (its own records, clock and journal; nothing to reset) and a token. */
export async function sandboxClient(sandbox: StartedTestContainer) {
  const baseUrl = `http://${sandbox.getHost()}:${sandbox.getMappedPort(4010)}/ns/test-${randomUUID()}`;
  const { stdout } = await sandbox.exec(['node', '/app/dist/bundle/cli.js', 'token']);
  return { baseUrl, headers: { authorization: `Bearer ${stdout.trim()}` } };
}
// snippet-end
