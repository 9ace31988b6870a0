import { expect } from 'chai';

/** scripts/docsExamples.mjs (`npm run docs:examples`), loaded from the repository (this file runs from dist/test/unit). */
interface DocsExamples {
  codeBlocks(markdown: string): { lang: string; code: string; line: number; mark: string | null }[];
  withPorts(code: string, serverPort: number, receiverPort: number): string;
}
const script = async (): Promise<DocsExamples> => (await import(new URL('../../../scripts/docsExamples.mjs', import.meta.url).href)) as DocsExamples;

describe('npm run docs:examples (scripts/docsExamples.mjs)', () => {
  it('finds each fenced block with its language, its fence line and the mark right before it', async () => {
    const { codeBlocks } = await script();
    const page = [
      '# A page', // 1
      '', // 2
      '<!-- docs:examples: server -->', // 3
      '', // 4
      '```sh', // 5
      'WEBHOOK_ALLOW_PRIVATE_TARGETS=true npm start', // 6
      '```', // 7
      '', // 8
      '<!-- docs:examples: run -->', // 9
      'A sentence between the mark and the block ends the mark.', // 10
      '', // 11
      '```sh', // 12
      'echo unmarked', // 13
      '```', // 14
      '<!-- docs:examples: run -->', // 15
      '```bash', // 16
      'curl http://localhost:3000/test', // 17
      '```', // 18
      '', // 19
      '```ts', // 20
      "const x: number = 'no';", // 21
      '```', // 22
      '- a list', // 23
      '  ```sh', // 24
      '  echo indented', // 25
      '  ```', // 26
    ].join('\n');
    expect(codeBlocks(page)).to.deep.equal([
      { lang: 'sh', code: 'WEBHOOK_ALLOW_PRIVATE_TARGETS=true npm start', line: 5, mark: 'server' },
      { lang: 'sh', code: 'echo unmarked', line: 12, mark: null },
      { lang: 'bash', code: 'curl http://localhost:3000/test', line: 16, mark: 'run' },
      { lang: 'ts', code: "const x: number = 'no';", line: 20, mark: null },
      { lang: 'sh', code: 'echo indented', line: 24, mark: null },
    ]);
  });

  it("puts the run's ports in place of the server's default one and the receiver's", async () => {
    const { withPorts } = await script();
    expect(withPorts('curl http://localhost:3000/x -d \'{"target_url":"http://127.0.0.1:4000/hooks"}\'\nserver.listen(4000, "127.0.0.1");', 41000, 42000)).to.equal(
      'curl http://localhost:41000/x -d \'{"target_url":"http://127.0.0.1:42000/hooks"}\'\nserver.listen(42000, "127.0.0.1");',
    );
  });
});
