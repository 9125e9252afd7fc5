import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createRedactor, loadRedactionList, RedactionError, type RedactionContext } from '../../src/redaction/index.js';

// Planted values are assembled at run time so no token-shaped literal sits in the repository.
const githubToken = `ghp_${'Xk9q'.repeat(9)}`;
const apiKey = `sk-ant-api03-${'Zt7w'.repeat(10)}`;
const workspace = '/tmp/abp-trial-7/workspace';
const home = '/home/alice';

const context: RedactionContext = {
  env: {
    GITHUB_TOKEN: githubToken,
    ANTHROPIC_API_KEY: apiKey,
    HOME: home,
    PATH: '/usr/local/bin:/usr/bin',
    EDITOR: 'nano-editor',
    SHORT_KEY: 'abc12',
  },
  workspace,
};

function errorOf(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('environment values', () => {
  const redactor = createRedactor(context);

  it('replaces the value of a secret-looking variable with its name', () => {
    const output = redactor.redactText(`git push https://x-access-token@github.com with ${githubToken} now`);
    expect(output).toContain('[REDACTED:env:GITHUB_TOKEN]');
    expect(output).not.toContain(githubToken);
  });

  it('labels a value by its variable even where a pattern rule would also match', () => {
    expect(redactor.redactText(`key=${apiKey}`)).toBe('key=[REDACTED:env:ANTHROPIC_API_KEY]');
  });

  it('leaves values of ordinary variables and values shorter than 6 characters', () => {
    expect(redactor.redactText('nano-editor and abc12')).toBe('nano-editor and abc12');
  });

  it('replaces the longest of overlapping values first, leaving no fragment', () => {
    const overlapping = createRedactor({ env: { A_TOKEN: 'tok-1234567', B_TOKEN: 'tok-1234567-extended' }, workspace });
    expect(overlapping.redactText('x tok-1234567-extended y tok-1234567 z')).toBe(
      'x [REDACTED:env:B_TOKEN] y [REDACTED:env:A_TOKEN] z',
    );
  });

  it('replaces named secrets of any length, and prefers the variable name for a value a variable holds', () => {
    const withSecrets = createRedactor({ ...context, secrets: ['pw9', githubToken, ''] });
    expect(withSecrets.redactText(`login pw9 then ${githubToken}`)).toBe(
      'login [REDACTED:secret] then [REDACTED:env:GITHUB_TOKEN]',
    );
  });

  it('labels a value held by two variables with the first name in code-unit order', () => {
    const twice = createRedactor({ env: { Z_SECRET: 'shared-value-1', A_SECRET: 'shared-value-1' }, workspace });
    expect(twice.redactText('shared-value-1')).toBe('[REDACTED:env:A_SECRET]');
  });
});

// One case per pattern rule of the published list; a rule added without a case fails the coverage test below.
const patternCases: Record<string, { text: string; secret: string; kept?: string[] }> = {
  'pem-private-key': {
    text: `key:\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA${'Qm9v'.repeat(8)}\n-----END OPENSSH PRIVATE KEY-----\ndone`,
    secret: 'b3BlbnNzaC1rZXktdjEAAAAA',
    kept: ['key:\n', '\ndone'],
  },
  'github-token': {
    text: `token github_pat_11ABCDEFG0${'a1B2'.repeat(12)} end`,
    secret: 'github_pat_11ABCDEFG0',
    kept: ['token ', ' end'],
  },
  'aws-access-key-id': {
    text: `aws_access_key_id = ASIA${'Q7RT'.repeat(4)}`,
    secret: `ASIA${'Q7RT'.repeat(4)}`,
    kept: ['aws_access_key_id = '],
  },
  'anthropic-api-key': {
    text: `x-api-key: sk-ant-admin01-${'Hh4k'.repeat(6)}`,
    secret: `sk-ant-admin01-${'Hh4k'.repeat(6)}`,
  },
  'openai-api-key': {
    text: `OPENAI=sk-proj-${'Pq8z'.repeat(8)}`,
    secret: `sk-proj-${'Pq8z'.repeat(8)}`,
    kept: ['OPENAI='],
  },
  'slack-token': { text: `slack xoxb-1234567890-${'Sl4ck'.repeat(3)}`, secret: `xoxb-1234567890-${'Sl4ck'.repeat(3)}` },
  'google-api-key': {
    text: `maps?key=AIza${'Sy9d'.repeat(8)}abc&v=3`,
    secret: `AIza${'Sy9d'.repeat(8)}abc`,
    kept: ['maps?key=', '&v=3'],
  },
  jwt: {
    text: `cookie eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.${'c2ln'.repeat(8)};`,
    secret: 'eyJzdWIiOiIxMjM0In0',
    kept: ['cookie ', ';'],
  },
  'authorization-header': {
    text: `curl -H "Authorization: Bearer ${'tK3n'.repeat(8)}" https://api.example.test`,
    secret: 'tK3n'.repeat(8),
    kept: ['curl -H "Authorization: Bearer ', '" https://api.example.test'],
  },
  'url-password': {
    text: 'git clone https://deploy:s3cr3t-pass@git.example.test/org/repo.git',
    secret: 's3cr3t-pass',
    kept: ['https://deploy:', '@git.example.test/org/repo.git'],
  },
};

describe('pattern rules', () => {
  const redactor = createRedactor({ env: {}, workspace });

  it('has a case for every pattern rule of the published list', () => {
    const ids = loadRedactionList()
      .rules.filter((rule) => rule.kind === 'pattern')
      .map((rule) => rule.id);
    expect(Object.keys(patternCases).sort()).toEqual([...ids].sort());
  });

  it.each(Object.entries(patternCases))(
    '%s: replaces the credential and keeps its surroundings',
    (id, { text, secret, kept }) => {
      const output = redactor.redactText(text);
      expect(output).toContain(`[REDACTED:${id}]`);
      expect(output).not.toContain(secret);
      for (const part of kept ?? []) expect(output).toContain(part);
    },
  );

  it('redacts Basic credentials in JSON header form and an unterminated PEM block to the end of the string', () => {
    expect(redactor.redactText('{"authorization": "Basic dXNlcjpwYXNzd29yZA=="}')).toBe(
      '{"authorization": "Basic [REDACTED:authorization-header]"}',
    );
    expect(redactor.redactText('x -----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA')).toBe(
      'x [REDACTED:pem-private-key]',
    );
  });

  it('leaves ordinary prose, identifiers and URLs alone', () => {
    const prose =
      'Basic usage: run task-runner, read the risk-assessment doc at https://example.test:8080/docs@v2 and skip eyJ.';
    expect(redactor.redactText(prose)).toBe(prose);
  });
});

describe('paths in text', () => {
  const redactor = createRedactor(context);

  it('writes the workspace as {workspace} and the home directory as <home>, only at path boundaries', () => {
    expect(redactor.redactText(`cd ${workspace}/src && cat ${home}/.npmrc ${workspace}-old/x ${home}x`)).toBe(
      `cd {workspace}/src && cat <home>/.npmrc ${workspace}-old/x ${home}x`,
    );
  });
});

describe('redactBytes', () => {
  it('replaces matches and returns every other byte unchanged, invalid UTF-8 included', () => {
    const redactor = createRedactor({ env: { DB_PASSWORD: 'pässwörd-123' }, workspace });
    const before = Buffer.from([0xff, 0xfe, 0x00, 0x80]);
    const data = Buffer.concat([
      before,
      Buffer.from(' pässwörd-123 é ', 'utf8'),
      Buffer.from(githubToken),
      Buffer.from([0xc3]),
    ]);
    const expected = Buffer.concat([
      before,
      Buffer.from(' [REDACTED:env:DB_PASSWORD] é ', 'utf8'),
      Buffer.from('[REDACTED:github-token]'),
      Buffer.from([0xc3]),
    ]);
    expect(redactor.redactBytes(data).equals(expected)).toBe(true);
  });
});

describe('summarizeArgs', () => {
  const redactor = createRedactor(context);
  const sha12 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex').slice(0, 12);

  it('keeps keys, numbers, booleans and null and redacts nested strings', () => {
    const args = { count: 3, dryRun: false, cursor: null, headers: { auth: { value: `token ${githubToken}` } } };
    expect(redactor.summarizeArgs(args)).toEqual({
      count: 3,
      dryRun: false,
      cursor: null,
      headers: { auth: { value: 'token [REDACTED:env:GITHUB_TOKEN]' } },
    });
  });

  it('makes workspace paths relative and hides every other absolute path', () => {
    const args = {
      file: `${workspace}/src/router/match.ts`,
      root: workspace,
      trailing: `${workspace}/src/`,
      escape: `${workspace}/../../etc/passwd`,
      sibling: `${workspace}2/secret.txt`,
      homeFile: `${home}/.ssh/id_ed25519`,
      system: '/etc/hosts',
      relative: 'src/index.ts',
      command: `npm test --prefix ${workspace} > ${home}/log.txt`,
    };
    expect(redactor.summarizeArgs(args)).toEqual({
      file: 'src/router/match.ts',
      root: '.',
      trailing: 'src',
      escape: '<outside-workspace>',
      sibling: '<outside-workspace>',
      homeFile: '<outside-workspace>',
      system: '<outside-workspace>',
      relative: 'src/index.ts',
      command: 'npm test --prefix {workspace} > <home>/log.txt',
    });
  });

  it('replaces strings longer than 200 characters after redaction by their size and digest', () => {
    const long = `${'x'.repeat(190)} ${githubToken}`;
    const redacted = `${'x'.repeat(190)} [REDACTED:env:GITHUB_TOKEN]`;
    const exactly200 = 'y'.repeat(200);
    const summary = redactor.summarizeArgs({ long, exactly200, unicode: 'é'.repeat(201) });
    expect(summary).toEqual({
      long: `<${redacted.length} bytes, sha256:${sha12(redacted)}>`,
      exactly200,
      unicode: `<402 bytes, sha256:${sha12('é'.repeat(201))}>`,
    });
  });

  it('bounds depth to 3 levels and length to 20 items, saying what was dropped', () => {
    const many = Array.from({ length: 23 }, (_, index) => index);
    const wide = Object.fromEntries(Array.from({ length: 22 }, (_, index) => [`k${index}`, index]));
    const summary = redactor.summarizeArgs({ many, wide, deep: { a: { b: { c: 1 }, list: [1, 2] } } });
    expect(summary.many).toEqual([...many.slice(0, 20), '<3 more items>']);
    expect(summary.wide).toEqual({
      ...Object.fromEntries(Array.from({ length: 20 }, (_, index) => [`k${index}`, index])),
      '<more>': '<2 more keys>',
    });
    expect(summary.deep).toEqual({ a: { b: '<object with 1 key>', list: '<array of 2 items>' } });
  });

  it('is deterministic and never contains a secret, however deep it was', () => {
    const args = {
      steps: [{ run: { env: { TOKEN: githubToken }, argv: ['--key', apiKey] } }],
      note: `${apiKey}`.repeat(10),
    };
    const first = JSON.stringify(createRedactor(context).summarizeArgs(args));
    const second = JSON.stringify(createRedactor({ ...context, env: { ...context.env } }).summarizeArgs(args));
    expect(first).toBe(second);
    expect(first).not.toContain(githubToken);
    expect(first).not.toContain(apiKey);
    expect(first).not.toContain('Zt7w');
  });
});

describe('createRedactor', () => {
  it('publishes the list version it applies', () => {
    expect(createRedactor(context).listVersion).toBe('abp-redaction/1');
  });

  it.each(['workspace', '/', ''])('refuses the workspace %j', (bad) => {
    const error = errorOf(() => createRedactor({ env: {}, workspace: bad }));
    expect(error).toBeInstanceOf(RedactionError);
    expect((error as RedactionError).code).toBe('invalid-context');
  });
});
