// The default-branch files of a scale-world repository: just enough for runner detection (manifests,
// test folders, CI workflow) to reach the verdict the generator planned. The signals each runner
// leaves are listed with RUNNER_RECIPES in criteria.ts; repositories without a test suite get the
// look-alikes that must not count (npm's "no test specified" stub, a Cargo crate without tests).

import type { Ecosystem, RunnerId } from './criteria.js';
import type { SimFile } from './model.js';

export interface RepoFilesPlan {
  owner: string;
  name: string;
  language: string | null;
  licenseSpdxId: string | null;
  ecosystem: Ecosystem | null;
  /** The planted runner; null when the repository has no test suite. */
  runner: RunnerId | null;
  hasCi: boolean;
  /** A small number that picks among equivalent spellings. */
  variant: number;
}

function packageName(name: string): string {
  return (
    name
      .toLowerCase()
      .replace(/[^a-z0-9-]+/g, '-')
      .replace(/^-+|-+$/g, '') || 'package'
  );
}

function moduleName(name: string): string {
  return packageName(name).replace(/-/g, '_');
}

function className(name: string): string {
  return (
    packageName(name)
      .split('-')
      .map((part) => `${part[0]?.toUpperCase() ?? ''}${part.slice(1)}`)
      .join('') || 'App'
  );
}

function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

function nodeFiles(plan: RepoFilesPlan): SimFile[] {
  const typescript = plan.language === 'TypeScript';
  const extension = typescript ? 'ts' : 'js';
  const devDependencies: Record<string, string> = typescript ? { typescript: '^5.6.0' } : {};
  const scripts: Record<string, string> = { build: typescript ? 'tsc -p .' : 'node scripts/build.js' };
  const files: SimFile[] = [];
  switch (plan.runner) {
    case 'vitest':
      devDependencies.vitest = '^3.2.0';
      scripts.test = 'vitest run';
      break;
    case 'jest':
      devDependencies.jest = '^29.7.0';
      devDependencies['jest-junit'] = '^16.0.0';
      scripts.test = 'jest';
      break;
    case 'mocha':
      devDependencies.mocha = '^10.7.0';
      scripts.test = 'mocha';
      break;
    case 'pytest':
    case 'go-test':
    case 'cargo-test':
    case 'maven':
    case 'gradle':
    case null:
      // npm init's stub: a "test" script that is not a test suite.
      if (plan.variant % 2 === 0) scripts.test = 'echo "Error: no test specified" && exit 1';
  }
  files.push({
    path: 'package.json',
    content: json({
      name: packageName(plan.name),
      version: '1.0.0',
      type: 'module',
      main: `dist/index.js`,
      scripts,
      license: plan.licenseSpdxId ?? 'UNLICENSED',
      devDependencies,
    }),
  });
  files.push({
    path: `src/index.${extension}`,
    content: `export function run(input${typescript ? ': string' : ''}) {\n  return input.trim();\n}\n`,
  });
  if (typescript)
    files.push({
      path: 'tsconfig.json',
      content: json({ compilerOptions: { strict: true, module: 'NodeNext', outDir: 'dist' } }),
    });
  if (plan.runner !== null) {
    const importLine = plan.runner === 'vitest' ? "import { expect, test } from 'vitest';\n" : '';
    const assertion = plan.runner === 'mocha' ? "import assert from 'node:assert';\n" : '';
    const check = plan.runner === 'mocha' ? "  assert.equal(run(' a '), 'a');" : "  expect(run(' a ')).toBe('a');";
    const name = plan.runner === 'mocha' ? 'it' : 'test';
    files.push({
      path: `test/index.test.${extension}`,
      content: `${importLine}${assertion}import { run } from '../src/index.js';\n\n${name}('trims input', () => {\n${check}\n});\n`,
    });
  }
  return files;
}

function pythonFiles(plan: RepoFilesPlan): SimFile[] {
  const module = moduleName(plan.name);
  const pytestConfig =
    plan.runner === 'pytest' && plan.variant % 2 === 0 ? '\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n' : '';
  const files: SimFile[] = [
    {
      path: 'pyproject.toml',
      content: `[project]\nname = "${packageName(plan.name)}"\nversion = "0.1.0"\nrequires-python = ">=3.9"\n${pytestConfig}`,
    },
    { path: `${module}/__init__.py`, content: `def run(value: str) -> str:\n    return value.strip()\n` },
  ];
  if (plan.runner === 'pytest') {
    if (plan.variant % 3 === 1) files.push({ path: 'pytest.ini', content: '[pytest]\naddopts = -q\n' });
    files.push({
      path: 'tests/test_core.py',
      content: `from ${module} import run\n\n\ndef test_run_trims():\n    assert run(" a ") == "a"\n`,
    });
  }
  return files;
}

function goFiles(plan: RepoFilesPlan): SimFile[] {
  const module = packageName(plan.name).replace(/-/g, '');
  const files: SimFile[] = [
    { path: 'go.mod', content: `module github.com/${plan.owner}/${plan.name}\n\ngo 1.22\n` },
    {
      path: `${module}.go`,
      content: `package ${module}\n\nimport "strings"\n\nfunc Run(value string) string { return strings.TrimSpace(value) }\n`,
    },
  ];
  if (plan.runner === 'go-test') {
    files.push({
      path: `${module}_test.go`,
      content: `package ${module}\n\nimport "testing"\n\nfunc TestRun(t *testing.T) {\n\tif Run(" a ") != "a" {\n\t\tt.Fatal("not trimmed")\n\t}\n}\n`,
    });
  }
  return files;
}

function rustFiles(plan: RepoFilesPlan): SimFile[] {
  const crate = packageName(plan.name);
  const files: SimFile[] = [
    { path: 'Cargo.toml', content: `[package]\nname = "${crate}"\nversion = "0.1.0"\nedition = "2021"\n` },
  ];
  if (plan.runner === 'cargo-test') {
    const inline = plan.variant % 2 === 0;
    files.push({
      path: 'src/lib.rs',
      content: `pub fn run(value: &str) -> &str {\n    value.trim()\n}\n${inline ? '\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn trims() {\n        assert_eq!(super::run(" a "), "a");\n    }\n}\n' : ''}`,
    });
    if (!inline)
      files.push({
        path: 'tests/run.rs',
        content: `#[test]\nfn trims() {\n    assert_eq!(${crate.replace(/-/g, '_')}::run(" a "), "a");\n}\n`,
      });
  } else {
    files.push({ path: 'src/main.rs', content: 'fn main() {\n    println!("hello");\n}\n' });
  }
  return files;
}

function jvmFiles(plan: RepoFilesPlan): SimFile[] {
  const kotlin = plan.language === 'Kotlin';
  const gradle = kotlin || plan.runner === 'gradle' || (plan.runner === null && plan.variant % 3 === 0);
  const name = className(plan.name);
  const sourceSet = kotlin ? 'kotlin' : 'java';
  const extension = kotlin ? 'kt' : 'java';
  const files: SimFile[] = [];
  if (gradle) {
    files.push({
      path: kotlin ? 'build.gradle.kts' : 'build.gradle',
      content: `plugins {\n    id${kotlin ? '("org.jetbrains.kotlin.jvm") version "2.0.0"' : " 'java'"}\n}\n\nrepositories { mavenCentral() }\n\ndependencies {\n    testImplementation(${kotlin ? '"org.jetbrains.kotlin:kotlin-test"' : "'org.junit.jupiter:junit-jupiter:5.10.2'"})\n}\n\ntest { useJUnitPlatform() }\n`,
    });
    files.push({ path: 'gradlew', content: '#!/bin/sh\nexec java -jar gradle/wrapper/gradle-wrapper.jar "$@"\n' });
  } else {
    files.push({
      path: 'pom.xml',
      content: `<project>\n  <modelVersion>4.0.0</modelVersion>\n  <groupId>io.github.${packageName(plan.owner)}</groupId>\n  <artifactId>${packageName(plan.name)}</artifactId>\n  <version>1.0.0</version>\n  <dependencies>\n    <dependency>\n      <groupId>org.junit.jupiter</groupId>\n      <artifactId>junit-jupiter</artifactId>\n      <version>5.10.2</version>\n      <scope>test</scope>\n    </dependency>\n  </dependencies>\n</project>\n`,
    });
  }
  files.push({
    path: `src/main/${sourceSet}/${name}.${extension}`,
    content: kotlin
      ? `fun run(value: String) = value.trim()\n`
      : `public class ${name} {\n    public static String run(String value) { return value.trim(); }\n}\n`,
  });
  if (plan.runner !== null) {
    files.push({
      path: `src/test/${sourceSet}/${name}Test.${extension}`,
      content: kotlin
        ? `import kotlin.test.*\n\nclass ${name}Test {\n    @Test fun trims() = assertEquals("a", run(" a "))\n}\n`
        : `import org.junit.jupiter.api.Test;\nimport static org.junit.jupiter.api.Assertions.assertEquals;\n\nclass ${name}Test {\n    @Test void trims() { assertEquals("a", ${name}.run(" a ")); }\n}\n`,
    });
  }
  return files;
}

/** Files of ecosystems without a runner recipe; some carry tests the registry cannot run. */
function otherFiles(plan: RepoFilesPlan): SimFile[] {
  const name = packageName(plan.name);
  switch (plan.language) {
    case 'C++':
      return [
        {
          path: 'CMakeLists.txt',
          content: `cmake_minimum_required(VERSION 3.20)\nproject(${moduleName(plan.name)} CXX)\nadd_library(${moduleName(plan.name)} src/lib.cpp)\nenable_testing()\n`,
        },
        { path: 'src/lib.cpp', content: '#include <string>\nstd::string run(const std::string& v) { return v; }\n' },
      ];
    case 'C':
      return [
        { path: 'Makefile', content: `all:\n\tcc -O2 -o ${name} src/main.c\n` },
        { path: 'src/main.c', content: 'int main(void) { return 0; }\n' },
      ];
    case 'Ruby':
      return [
        { path: 'Gemfile', content: "source 'https://rubygems.org'\ngem 'rspec'\n" },
        { path: `lib/${moduleName(plan.name)}.rb`, content: 'def run(value) = value.strip\n' },
        {
          path: `spec/${moduleName(plan.name)}_spec.rb`,
          content: "RSpec.describe 'run' do\n  it('trims') { expect(run(' a ')).to eq('a') }\nend\n",
        },
      ];
    case 'PHP':
      return [
        {
          path: 'composer.json',
          content: json({ name: `${packageName(plan.owner)}/${name}`, 'require-dev': { 'phpunit/phpunit': '^11.0' } }),
        },
        {
          path: 'phpunit.xml',
          content:
            '<phpunit bootstrap="vendor/autoload.php"><testsuites><testsuite name="unit"><directory>tests</directory></testsuite></testsuites></phpunit>\n',
        },
        {
          path: 'tests/RunTest.php',
          content:
            '<?php\nuse PHPUnit\\Framework\\TestCase;\nfinal class RunTest extends TestCase { public function testTrims(): void { $this->assertSame("a", trim(" a ")); } }\n',
        },
      ];
    case 'C#':
      return [
        {
          path: `${className(plan.name)}.csproj`,
          content:
            '<Project Sdk="Microsoft.NET.Sdk"><PropertyGroup><TargetFramework>net8.0</TargetFramework></PropertyGroup></Project>\n',
        },
        { path: 'Program.cs', content: 'System.Console.WriteLine("hello");\n' },
      ];
    case 'Swift':
      return [
        {
          path: 'Package.swift',
          content: `// swift-tools-version:5.9\nimport PackageDescription\nlet package = Package(name: "${className(plan.name)}")\n`,
        },
        { path: `Sources/${className(plan.name)}/main.swift`, content: 'print("hello")\n' },
      ];
    case 'Shell':
      return [{ path: `bin/${name}.sh`, content: '#!/bin/sh\nset -eu\necho "hello"\n' }];
    case null:
    default:
      return [{ path: 'docs/index.md', content: `# ${plan.name}\n\nNotes, links and guides.\n` }];
  }
}

/** What each runner's CI job runs, as projects write it. */
const CI_STEPS: Readonly<Record<RunnerId, readonly string[]>> = {
  vitest: ['npm install', 'npx vitest run'],
  jest: ['npm install', 'npx jest --ci'],
  mocha: ['npm install', 'npx mocha'],
  pytest: ['pip install -e . pytest', 'pytest'],
  'go-test': ['go test ./...'],
  'cargo-test': ['cargo test'],
  maven: ['mvn -B test'],
  gradle: ['./gradlew test'],
};

function ciWorkflow(plan: RepoFilesPlan): SimFile {
  const steps = plan.runner !== null ? CI_STEPS[plan.runner] : ['echo "lint only"'];
  return {
    path: '.github/workflows/ci.yml',
    content: `name: CI\non:\n  push:\n    branches: [main]\n  pull_request:\njobs:\n  build:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n${steps.map((step) => `      - run: ${step}\n`).join('')}`,
  };
}

export function repoFiles(plan: RepoFilesPlan): SimFile[] {
  const files: SimFile[] = [
    {
      path: 'README.md',
      content: `# ${plan.name}\n\n${plan.language === null ? 'Documentation.' : `A ${plan.language} project.`}\n`,
    },
  ];
  if (plan.licenseSpdxId !== null) {
    // NOASSERTION: a license file GitHub could not match to any SPDX id.
    const text =
      plan.licenseSpdxId === 'NOASSERTION'
        ? `Copyright (c) ${plan.owner}. Use permitted for non-commercial evaluation only.`
        : `SPDX-License-Identifier: ${plan.licenseSpdxId}\n\nCopyright (c) ${plan.owner}`;
    files.push({ path: 'LICENSE', content: `${text}\n` });
  }
  switch (plan.ecosystem) {
    case 'node':
      files.push(...nodeFiles(plan));
      break;
    case 'python':
      files.push(...pythonFiles(plan));
      break;
    case 'go':
      files.push(...goFiles(plan));
      break;
    case 'rust':
      files.push(...rustFiles(plan));
      break;
    case 'jvm':
      files.push(...jvmFiles(plan));
      break;
    case null:
      files.push(...otherFiles(plan));
      break;
  }
  if (plan.hasCi) files.push(ciWorkflow(plan));
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
