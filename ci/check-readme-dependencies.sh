#!/usr/bin/env bash
# Checks that the job jar dependencies README.md gives (its XML block under "In a job jar") are
# those of the job-jar consumer project, as the Maven invoker filtered it (versions filled in),
# apart from the project's test-scope dependencies.
# Usage: ci/check-readme-dependencies.sh README.md path/to/filtered/job-jar/pom.xml
set -euo pipefail

readme=${1:?usage: $0 README.md job-jar/pom.xml}
pom=${2:?usage: $0 README.md job-jar/pom.xml}
for file in "$readme" "$pom"; do
    [[ -f $file ]] || { echo "check-readme-dependencies: no such file: $file" >&2; exit 1; }
done

# One groupId:artifactId:version:scope line per <dependency> element (scope "compile" if none).
coordinates() {
    sed 's/<!--.*-->//' | tr -d ' \t\n' | sed 's#</dependency>#&\n#g' | grep -o '<dependency>.*' \
        | while IFS= read -r dep; do
            field() { sed -n "s#.*<$1>\([^<]*\)</$1>.*#\1#p" <<< "$dep"; }
            scope=$(field scope)
            echo "$(field groupId):$(field artifactId):$(field version):${scope:-compile}"
        done | sort
}

documented=$(sed -n '/^\*\*In a job jar\*\*/,/^```$/p' "$readme" | sed -n '/^```xml$/,/^```$/p' | coordinates)
[ -n "$documented" ] || { echo "check-readme-dependencies: $readme has no XML block under **In a job jar**" >&2; exit 1; }
tested=$(sed -n '/<dependencies>/,/<\/dependencies>/p' "$pom" | coordinates | grep -v ':test$')

if [ "$documented" != "$tested" ]; then
    echo "check-readme-dependencies: $readme and $pom differ (< README, > consumer project):" >&2
    diff <(echo "$documented") <(echo "$tested") >&2 || true
    exit 1
fi
echo "check-readme-dependencies: OK ($(wc -l <<< "$documented") dependencies)"
