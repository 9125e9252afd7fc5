#!/usr/bin/env bash
# Captures one repository into the detection corpus (bench/corpus/repos/<owner>+<name>/): its file listing and the few
# manifest files runner detection reads, never its source code. Used with a mirror fetched by the search tool:
#   scripts/capture-detection-corpus.sh /work/.mirror/pallets+click/repo pallets/click
# The ground truth (repo.json's "truth") is written by hand after reading the repository's CI.
set -euo pipefail
git_dir=${1:?usage: capture-detection-corpus.sh <git dir> <owner/name>}
repo=${2:?usage: capture-detection-corpus.sh <git dir> <owner/name>}
root=$(cd "$(dirname "$0")/.." && pwd)
out="$root/bench/corpus/repos/${repo/\//+}"
max_paths=100000
max_file_bytes=262144
max_files=300

commit=$(git --git-dir="$git_dir" rev-parse HEAD)
# A capture made again keeps the truth written by hand.
truth=null
if [[ -f "$out/repo.json" ]]; then
  truth=$(node -e 'process.stdout.write(JSON.stringify(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).truth))' "$out/repo.json")
fi
rm -rf "$out"
mkdir -p "$out/files"
listing=$(mktemp)
trap 'rm -f "$listing"' EXIT
git --git-dir="$git_dir" ls-tree -r --name-only "$commit" | LC_ALL=C sort > "$listing"
total=$(wc -l < "$listing")
head -n "$max_paths" "$listing" | gzip -9n > "$out/tree.txt.gz"

# Manifests by file name, anywhere but in vendored or installed trees; shallowest first, so a cap keeps the root's.
pattern='(^|/)(package\.json|pnpm-workspace\.yaml|\.yarnrc\.yml|lerna\.json|bunfig\.toml|\.taprc|\.mocharc\.(json|ya?ml)|jest\.config\.json|\.nvmrc|\.node-version|pyproject\.toml|setup\.cfg|tox\.ini|pytest\.ini|Pipfile|requirements[^/]*\.txt|\.python-version|go\.mod|go\.work|Cargo\.toml|rust-toolchain(\.toml)?|pom\.xml|build\.gradle(\.kts)?|settings\.gradle(\.kts)?|gradle-wrapper\.properties|CMakeLists\.txt|Gemfile|\.rspec|composer\.json|phpunit\.xml(\.dist)?)$'
skipped=()
count=0
while IFS= read -r path; do
  if ((count >= max_files)); then
    skipped+=("$path (over $max_files files)")
    continue
  fi
  size=$(git --git-dir="$git_dir" cat-file -s "$commit:$path")
  if ((size > max_file_bytes)); then
    skipped+=("$path ($size bytes)")
    continue
  fi
  mkdir -p "$out/files/$(dirname "$path")"
  git --git-dir="$git_dir" cat-file blob "$commit:$path" > "$out/files/$path"
  count=$((count + 1))
done < <(grep -E "$pattern" "$listing" | grep -Ev '(^|/)(node_modules|vendor|third_party|third-party)/' |
  awk -F/ '{ print NF "\t" $0 }' | LC_ALL=C sort -n -k1,1 -k2 | cut -f2-)

node -e '
const [repo, commit, total, max, skipped, truth] = process.argv.slice(1);
const record = {
  repo,
  commit,
  paths: Number(total),
  treeTruncated: Number(total) > Number(max),
  skippedFiles: skipped === "" ? [] : skipped.split("\n"),
  truth: JSON.parse(truth),
};
process.stdout.write(JSON.stringify(record, null, 2) + "\n");
' "$repo" "$commit" "$total" "$max_paths" "$(printf '%s\n' "${skipped[@]+"${skipped[@]}"}" | sed '/^$/d')" "$truth" > "$out/repo.json"
echo "$out: $total paths, $count manifest files"
