// Owns how an install step reaches the package registries: exactly the way this host does (its CA certificates, its
// proxies, and the pip, npm, cargo and Go settings that name indexes and mirrors), carried into the step as read-only
// binds under /run/abp-registry and variables, so none of it lands in the layer the step writes and none of it is
// published; and which hosts those are, the egress proxy's allow-list: each ecosystem's public registries and every
// host the carried settings name. A user behind a corporate mirror is served the same way as these machines.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { EgressRule } from '../execution/egress-proxy.js';
import type { Mount } from './runtime.js';

const INSIDE = '/run/abp-registry';

export interface RegistryAccess {
  readonly mounts: Mount[];
  readonly env: Record<string, string>;
  /** What was carried in, by name only (never a value: a variable may hold a token), for the build log. */
  readonly carried: string[];
  /** The registries the install step may reach through the egress proxy. */
  readonly hosts: EgressRule[];
}

/** The public registries of every ecosystem abp builds for (an install may use another's, as a Python build uses npm). */
const PUBLIC_REGISTRIES = [
  'pypi.org',
  'files.pythonhosted.org',
  'registry.npmjs.org',
  'registry.yarnpkg.com',
  'proxy.golang.org',
  'sum.golang.org',
  'index.crates.io',
  'static.crates.io',
  'crates.io',
  'repo.maven.apache.org',
  'repo1.maven.org',
];

/** The hosts (and ports) of the URLs in a setting or a configuration file, without any credentials they embed. */
function urlHosts(text: string): EgressRule[] {
  const rules: EgressRule[] = [];
  // A list (`GOPROXY=https://a,https://b|direct`) ends each URL at its separator.
  for (const match of text.matchAll(/\b(https?):\/\/([^\s/'"?#<>,;|]+)/g)) {
    const authority = (match[2] as string).replace(/^.*@/, '');
    const port = /:(\d{1,5})$/.exec(authority)?.[1];
    const host = port === undefined ? authority : authority.slice(0, -port.length - 1);
    if (host === '') continue;
    rules.push({
      host: host.toLowerCase(),
      ports: [port === undefined ? (match[1] === 'https' ? 443 : 80) : Number(port)],
    });
  }
  return rules;
}

// Variables whose values are addresses, hosts or timeouts, passed as they are. The host's proxy settings are not: the
// egress proxy chains through the host's proxy itself, and a proxy address inside would be a way around its list (and
// may carry credentials).
const PASSED = [
  /^PIP_(INDEX_URL|EXTRA_INDEX_URL|TRUSTED_HOST|DEFAULT_TIMEOUT|RETRIES|TIMEOUT|DISABLE_PIP_VERSION_CHECK)$/,
  /^UV_(INDEX_URL|EXTRA_INDEX_URL|DEFAULT_INDEX|INDEX)$/,
  /^NPM_CONFIG_(REGISTRY|STRICT_SSL|FETCH_RETRIES|FETCH_TIMEOUT)$/i,
  /^GO(PROXY|NOSUMDB|NOPROXY|PRIVATE|SUMDB|INSECURE)$/,
  /^CARGO_REGISTRIES_.*_(INDEX|PROTOCOL)$/,
  /^CARGO_REGISTRY_DEFAULT$/,
  /^CARGO_HTTP_(TIMEOUT|MULTIPLEXING)$/,
  /^CARGO_NET_(RETRY|GIT_FETCH_WITH_CLI)$/,
];
// A configuration file's line that names a proxy (pip's `proxy =`, npm's `https-proxy=`, cargo's `proxy = "…"`).
const PROXY_SETTING = /^\s*[\w.-]*proxy[\w.-]*\s*[=:]/i;
// Variables naming a CA bundle: the first that exists is bound in, and every tool is pointed at it.
const CA_FILE_VARIABLES = [
  'SSL_CERT_FILE',
  'REQUESTS_CA_BUNDLE',
  'PIP_CERT',
  'NODE_EXTRA_CA_CERTS',
  'CURL_CA_BUNDLE',
  'CARGO_HTTP_CAINFO',
];
const CA_POINTED = [...CA_FILE_VARIABLES, 'GIT_SSL_CAINFO', 'NPM_CONFIG_CAFILE'];
const SYSTEM_CA = '/etc/ssl/certs/ca-certificates.crt';

const JAVA_TRUST_STORE = '/etc/ssl/certs/java/cacerts';

/** The trust store the host's Java uses: the one its options name, else Debian's, else the JDK's own. */
function javaTrustStore(hostEnv: Readonly<Record<string, string | undefined>>): string | null {
  for (const name of ['JAVA_TOOL_OPTIONS', 'JDK_JAVA_OPTIONS', 'MAVEN_OPTS']) {
    const named = /-Djavax\.net\.ssl\.trustStore=(\S+)/.exec(hostEnv[name] ?? '')?.[1];
    if (named !== undefined) return file(named);
  }
  const javaHome = hostEnv['JAVA_HOME'];
  return file(JAVA_TRUST_STORE) ?? (javaHome === undefined ? null : file(join(javaHome, 'lib/security/cacerts')));
}

function file(path: string | undefined): string | null {
  if (path === undefined || path === '') return null;
  try {
    return statSync(path).isFile() ? path : null;
  } catch {
    return null;
  }
}

/** The host's registry access, read from `hostEnv` and the configuration files it names or implies. */
export function registryAccess(
  hostEnv: Readonly<Record<string, string | undefined>>,
  options: { java?: boolean } = {},
): RegistryAccess {
  const mounts: Mount[] = [];
  const env: Record<string, string> = {};
  const carried: string[] = [];
  const bind = (source: string, name: string, variable?: string): string => {
    const target = `${INSIDE}/${name}`;
    mounts.push({ source, target });
    if (variable !== undefined) env[variable] = target;
    carried.push(`${variable ?? name} (file ${source})`);
    return target;
  };

  for (const [name, value] of Object.entries(hostEnv)) {
    if (value === undefined || !PASSED.some((pattern) => pattern.test(name))) continue;
    env[name] = value;
    carried.push(name);
  }
  // No resolver is carried in: the step has no network, and the egress proxy resolves names on the host.

  const ca = CA_FILE_VARIABLES.map((name) => file(hostEnv[name])).find((path) => path !== null) ?? file(SYSTEM_CA);
  if (ca !== null) {
    const inside = bind(ca, 'ca-certificates.crt');
    for (const name of CA_POINTED) env[name] = inside;
    // Go and OpenSSL also read the system bundle at its Debian path.
    mounts.push({ source: ca, target: SYSTEM_CA });
  }

  // Java reads no PEM bundle: it trusts its own store, which Debian builds from the system's certificates when the
  // image is made, without any the host added. The host's store, built from the host's certificates, stands in for it.
  if (options.java === true) {
    const store = javaTrustStore(hostEnv);
    if (store !== null) {
      mounts.push({ source: store, target: JAVA_TRUST_STORE });
      carried.push(`the Java trust store (file ${store})`);
    }
  }

  const home = hostEnv['HOME'] ?? homedir();
  const pipConfig =
    file(hostEnv['PIP_CONFIG_FILE']) ??
    [join(home, '.config/pip/pip.conf'), join(home, '.pip/pip.conf'), '/etc/xdg/pip/pip.conf', '/etc/pip.conf']
      .map((path) => file(path))
      .find((path) => path !== null);
  if (pipConfig !== undefined && pipConfig !== null) bind(pipConfig, 'pip.conf', 'PIP_CONFIG_FILE');

  const npmUser = file(hostEnv['NPM_CONFIG_USERCONFIG'] ?? join(home, '.npmrc'));
  if (npmUser !== null) bind(npmUser, 'npmrc-user', 'NPM_CONFIG_USERCONFIG');
  const npmGlobal = file(hostEnv['NPM_CONFIG_GLOBALCONFIG']) ?? file('/etc/npmrc') ?? file('/usr/local/etc/npmrc');
  if (npmGlobal !== null) bind(npmGlobal, 'npmrc-global', 'NPM_CONFIG_GLOBALCONFIG');

  // cargo reads configuration from every folder above the checkout (/work/repo): /work/.cargo is the install's own.
  const cargoHome = hostEnv['CARGO_HOME'] ?? join(home, '.cargo');
  const cargoConfig = file(join(cargoHome, 'config.toml')) ?? file(join(cargoHome, 'config'));
  if (cargoConfig !== null) {
    mounts.push({ source: cargoConfig, target: '/work/.cargo/config.toml' });
    carried.push(`cargo configuration (file ${cargoConfig})`);
  }

  const goEnv = file(hostEnv['GOENV'] ?? join(home, '.config/go/env'));
  if (goEnv !== null && existsSync(goEnv)) bind(goEnv, 'go.env', 'GOENV');

  const named = [
    ...Object.values(env),
    ...mounts
      // Certificates name their authorities' URLs, which are no registries.
      .filter(
        (mount) => !mount.target.endsWith('.crt') && mount.target !== SYSTEM_CA && mount.target !== JAVA_TRUST_STORE,
      )
      .map((mount) =>
        readFileSync(mount.source, 'utf8')
          .split('\n')
          .filter((line) => !PROXY_SETTING.test(line))
          .join('\n'),
      ),
  ].flatMap(urlHosts);
  const hosts = [...PUBLIC_REGISTRIES.map((host) => ({ host, ports: [443] })), ...named];
  return { mounts, env, carried, hosts };
}
