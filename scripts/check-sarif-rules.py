#!/usr/bin/env python3
"""The SARIF Multitool's `validate` rules, applied to SARIF 2.1.0 logs (the multitool is a .NET tool that Debian
does not package; the JSON schema is checked by check-json-schema.py).

Rules (microsoft/sarif-sdk, src/Sarif.Multitool.Library/Rules, v4.x; the error-level SARIF1xxx rules and the
warning-level SARIF2xxx rules that `validate` shows by default):
  SARIF1001 RuleIdentifiersMustBeValid (warning)      SARIF1002 UrisMustBeValid
  SARIF1004 ExpressUriBaseIdsCorrectly                SARIF1005 UriMustBeAbsolute
  SARIF1006 InvocationPropertiesMustBeConsistent      SARIF1007 RegionPropertiesMustBeConsistent
  SARIF1008 PhysicalLocationPropertiesMustBeConsistent
  SARIF1009 IndexPropertiesMustBeConsistentWithArrays SARIF1010 RuleIdMustBeConsistent
  SARIF1011 ReferenceFinalSchema                      SARIF1012 MessageArgumentsMustBeConsistentWithRule
  SARIF2001 TerminateMessagesWithPeriod               SARIF2004 OptimizeFileSize
  SARIF2005 ProvideToolProperties                     SARIF2007 ExpressPathsRelativeToRepoRoot
  SARIF2008 ProvideSchema                             SARIF2017 ProvideRequiredRegionProperties
Only the parts of the log the multitool visits are checked (not contextRegion as a region, not taxonomies).

Usage: check-sarif-rules.py LOG.sarif...   Prints one line per finding ("FILE: LEVEL RULE: PATH: message") and exits
1 when any error or warning is found, 0 otherwise.
"""
import json
import re
import sys

URI_CHARS = re.compile(r"^(?:[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=]|%[0-9A-Fa-f]{2})*$")
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:")
FINAL_SCHEMA_SUFFIXES = ("2.1.0", "2.1.0.json", "2.1.0-rtm.5", "2.1.0-rtm.5.json", "2.1.0-rtm.6", "2.1.0-rtm.6.json")


def well_formed(uri):
    return isinstance(uri, str) and bool(URI_CHARS.match(uri))


def absolute(uri):
    return bool(SCHEME.match(uri))


class Checker:
    def __init__(self, name):
        self.name = name
        self.findings = []

    def report(self, level, rule, path, message):
        self.findings.append(f"{self.name}: {level} {rule}: {path or '(root)'}: {message}")

    # ---- URIs (SARIF1002, SARIF1005) ----
    def uri(self, value, path, must_be_absolute):
        if value is None:
            return
        if not well_formed(value):
            self.report("error", "SARIF1002", path, f"the string '{value}' is not a valid URI reference (RFC 3986)")
            return
        if absolute(value) and value.lower().startswith("file:") and ".." in value.split("/"):
            self.report("error", "SARIF1002", path, f"the 'file' URI '{value}' contains a '..' segment")
        if must_be_absolute and not absolute(value):
            self.report("error", "SARIF1005", path, f"required to be an absolute URI, but '{value}' is relative")

    # ---- the visited objects ----
    def artifact_location(self, loc, path, run, run_path):
        if not isinstance(loc, dict):
            return
        uri = loc.get("uri")
        self.uri(uri, path + ".uri", must_be_absolute=False)
        if loc.get("uriBaseId") is not None and isinstance(uri, str) and well_formed(uri) and absolute(uri):
            self.report("error", "SARIF1004", path,
                        f"has a 'uriBaseId' property '{loc['uriBaseId']}', but its 'uri' '{uri}' is absolute")
        self.index(loc, "index", run.get("artifacts"), path, "artifactLocation", run_path + ".artifacts")

    def index(self, obj, prop, array, path, what, array_path):
        value = obj.get(prop, -1)
        if not isinstance(value, int) or value == -1:
            return
        if array is None:
            self.report("error", "SARIF1009", path, f"this '{what}' has '{prop}' {value}, but '{array_path}' does not exist")
        elif value < 0 or value >= len(array):
            self.report("error", "SARIF1009", path,
                        f"this '{what}' has '{prop}' {value}, but '{array_path}' has fewer than {value + 1} elements")

    def region(self, region, path):
        if not isinstance(region, dict):
            return
        start_line = region.get("startLine", 0)
        if not (start_line >= 1 or region.get("charOffset", -1) >= 0 or region.get("byteOffset", -1) >= 0):
            self.report("error", "SARIF1007", path, "does not specify 'startLine', 'charOffset', or 'byteOffset'")
        if "endLine" in region and region["endLine"] < start_line:
            self.report("error", "SARIF1007", path + ".endLine", "'endLine' precedes 'startLine'")
        one_line = "endLine" not in region or region.get("endLine") == start_line
        if one_line and "endColumn" in region and region["endColumn"] < region.get("startColumn", 0):
            self.report("error", "SARIF1007", path + ".endColumn", "'endColumn' precedes 'startColumn'")

    def physical_location(self, phys, path, run, run_path):
        if not isinstance(phys, dict):
            return
        self.artifact_location(phys.get("artifactLocation"), path + ".artifactLocation", run, run_path)
        self.region(phys.get("region"), path + ".region")
        if "contextRegion" in phys:
            if "region" not in phys:
                self.report("error", "SARIF1008", path, "a 'contextRegion' requires a 'region'")
            elif not proper_superset(phys["contextRegion"], phys["region"]):
                self.report("error", "SARIF1008", path, "'contextRegion' is not a proper superset of 'region'")

    def location(self, loc, path, run, run_path):
        if isinstance(loc, dict):
            self.physical_location(loc.get("physicalLocation"), path + ".physicalLocation", run, run_path)
            for j, logical in enumerate(loc.get("logicalLocations", []) or []):
                self.index(logical, "index", run.get("logicalLocations"), f"{path}.logicalLocations[{j}]",
                           "logicalLocation", run_path + ".logicalLocations")

    def descriptor(self, rule, path):
        rid, name = rule.get("id"), rule.get("name")
        if isinstance(rid, str) and isinstance(name, str) and rid.lower() == name.lower():
            self.report("warning", "SARIF1001", path, f"the rule '{rid}' has a 'name' identical to its 'id'")
        self.uri(rule.get("helpUri"), path + ".helpUri", must_be_absolute=True)

    def result(self, res, path, run, run_path, rules):
        rule_id = res.get("ruleId")
        ref_id = (res.get("rule") or {}).get("id")
        blank = lambda s: not isinstance(s, str) or not s.strip()
        if blank(rule_id) and blank(ref_id):
            self.report("error", "SARIF1010", path, "this result contains neither 'ruleId' nor 'rule.id'")
        elif not blank(rule_id) and not blank(ref_id) and rule_id.lower() != ref_id.lower():
            self.report("error", "SARIF1010", path, f"'ruleId' '{rule_id}' differs from 'rule.id' '{ref_id}'")
        self.index(res, "ruleIndex", rules, path, "result", run_path + ".tool.driver.rules")
        self.message_arguments(res, path, rules)
        for j, uri in enumerate(res.get("workItemUris", []) or []):
            self.uri(uri, f"{path}.workItemUris[{j}]", must_be_absolute=True)
        if "analysisTarget" in res:
            self.artifact_location(res["analysisTarget"], path + ".analysisTarget", run, run_path)
        for key in ("locations", "relatedLocations"):
            for k, loc in enumerate(res.get(key, []) or []):
                self.location(loc, f"{path}.{key}[{k}]", run, run_path)
        for k, loc in enumerate(res.get("locations", []) or []):  # SARIF2017
            phys = loc.get("physicalLocation") if isinstance(loc, dict) else None
            if phys is None:
                continue
            reg = phys.get("region")
            if reg is None:
                self.report("warning", "SARIF2017", f"{path}.locations[{k}].physicalLocation", "no 'region'")
            elif not (reg.get("startLine", 0) >= 1 or reg.get("charOffset", -1) >= 0 or reg.get("byteOffset", -1) >= 0):
                self.report("warning", "SARIF2017", f"{path}.locations[{k}].physicalLocation.region",
                            "the region has no start property")
        if "rule" in res and "toolComponent" not in (res.get("rule") or {}):  # SARIF2004 PreferRuleId
            self.report("warning", "SARIF2004", path + ".rule", "prefer 'ruleId' to a 'rule' object")

    def message_arguments(self, res, path, rules):
        message = res.get("message") or {}
        mid = message.get("id")
        if not mid:
            return
        rule = find_rule(res, rules)
        strings = (rule or {}).get("messageStrings") or {}
        if mid not in strings:
            self.report("error", "SARIF1012", path, f"refers to message '{mid}', which its rule does not define")
            return
        needed = 1 + max([int(n) for n in re.findall(r"\{(\d+)\}", strings[mid].get("text", ""))] or [-1])
        if len(message.get("arguments", []) or []) < needed:
            self.report("error", "SARIF1012", path, f"message '{mid}' needs {needed} arguments")

    def run(self, run, run_path):
        tool = run.get("tool") or {}
        driver = tool.get("driver") or {}
        rules = driver.get("rules")
        for comp_path, comp in [(run_path + ".tool.driver", driver)] + [
                (f"{run_path}.tool.extensions[{i}]", e) for i, e in enumerate(tool.get("extensions", []) or [])]:
            self.uri(comp.get("downloadUri"), comp_path + ".downloadUri", must_be_absolute=True)
            for key in ("rules", "notifications"):
                for i, rule in enumerate(comp.get(key, []) or []):
                    self.descriptor(rule, f"{comp_path}.{key}[{i}]")
        for i, rule in enumerate(rules or []):  # SARIF2001
            for key, string in (rule.get("messageStrings") or {}).items():
                text = string.get("text", "")
                if text and not text.endswith("."):
                    self.report("warning", "SARIF2001", f"{run_path}.tool.driver.rules[{i}].messageStrings.{key}.text",
                                f"the message '{key}' of rule '{rule.get('id')}' does not end in a period")
        self.tool_properties(driver, run_path + ".tool.driver")
        if rules and isinstance(rules[0], dict) and set(rules[0]) == {"id"}:
            self.report("warning", "SARIF2004", run_path + ".tool.driver.rules", "rules that carry only an 'id'")
        artifacts = run.get("artifacts")
        for i, art in enumerate(artifacts or []):
            if "location" in art:
                self.artifact_location(art["location"], f"{run_path}.artifacts[{i}].location", run, run_path)
            self.index(art, "parentIndex", artifacts, f"{run_path}.artifacts[{i}]", "artifact", run_path + ".artifacts")
        for key, base in (run.get("originalUriBaseIds") or {}).items():
            self.uri_base_id(key, base, f"{run_path}.originalUriBaseIds.{key}")
        for i, inv in enumerate(run.get("invocations", []) or []):
            start, end = inv.get("startTimeUtc"), inv.get("endTimeUtc")
            if start and end and end < start:
                self.report("error", "SARIF1006", f"{run_path}.invocations[{i}].endTimeUtc",
                            f"'endTimeUtc' {end} precedes 'startTimeUtc' {start}")
        for i, vcs in enumerate(run.get("versionControlProvenance", []) or []):
            self.uri(vcs.get("repositoryUri"), f"{run_path}.versionControlProvenance[{i}].repositoryUri", True)
        self.repo_relative_paths(run, run_path)
        for j, res in enumerate(run.get("results", []) or []):
            self.result(res, f"{run_path}.results[{j}]", run, run_path, rules)

    def uri_base_id(self, key, base, path):
        uri = base.get("uri") if isinstance(base, dict) else None
        if not well_formed(uri):
            return
        if base.get("uriBaseId") is None and not absolute(uri):
            self.report("error", "SARIF1004", path, f"'originalUriBaseIds' element '{key}' is not absolute")
        if not uri.endswith("/"):
            self.report("error", "SARIF1004", path, f"'originalUriBaseIds' element '{key}' does not end with a slash")
        if ".." in uri.split("/"):
            self.report("error", "SARIF1004", path, f"'originalUriBaseIds' element '{key}' contains a '..' segment")
        if absolute(uri) and re.search(r"[?#]", uri):
            self.report("error", "SARIF1004", path, f"'originalUriBaseIds' element '{key}' has a query or fragment")

    def tool_properties(self, driver, path):  # SARIF2005
        name = driver.get("name", "")
        if len(str(name).split()) > 3:
            self.report("warning", "SARIF2005", path + ".name", f"the tool name '{name}' is more than 3 words")
        if not driver.get("informationUri"):
            self.report("warning", "SARIF2005", path, "no 'informationUri'")
        versions = [driver.get(k) for k in ("version", "semanticVersion", "dottedQuadFileVersion")]
        if not any(isinstance(v, str) and v.strip() for v in versions):
            self.report("warning", "SARIF2005", path, "no tool version")
        elif isinstance(driver.get("version"), str) and not re.match(r"^\d", driver["version"]):
            self.report("warning", "SARIF2005", path + ".version", "the version does not start with a digit")

    def repo_relative_paths(self, run, run_path):  # SARIF2007
        bases = set()
        for i, vcs in enumerate(run.get("versionControlProvenance", []) or []):
            mapped = (vcs.get("mappedTo") or {}).get("uriBaseId")
            if not mapped:
                self.report("warning", "SARIF2007", f"{run_path}.versionControlProvenance[{i}]",
                            "no 'mappedTo.uriBaseId'")
                continue
            bases.add(mapped)
            for key, base in (run.get("originalUriBaseIds") or {}).items():
                if isinstance(base, dict) and base.get("uriBaseId") == mapped:
                    bases.add(key)
        if not bases:
            return
        for j, res in enumerate(run.get("results", []) or []):
            for k, loc in enumerate(res.get("locations", []) or []):
                art = ((loc or {}).get("physicalLocation") or {}).get("artifactLocation") or {}
                if art and art.get("uriBaseId") not in bases:
                    self.report("warning", "SARIF2007",
                                f"{run_path}.results[{j}].locations[{k}].physicalLocation.artifactLocation",
                                "not relative to the repository root")

    def log(self, log):
        if "$schema" not in log:
            self.report("warning", "SARIF2008", "", "no '$schema' property")
        else:
            self.uri(log["$schema"], "$schema", must_be_absolute=True)
            if not str(log["$schema"]).endswith(FINAL_SCHEMA_SUFFIXES):
                self.report("error", "SARIF1011", "$schema",
                            f"'{log['$schema']}' does not refer to the final SARIF 2.1.0 schema")
        for i, run in enumerate(log.get("runs", []) or []):
            self.run(run, f"runs[{i}]")


def find_rule(res, rules):
    rules = rules or []
    index = res.get("ruleIndex", -1)
    if isinstance(index, int) and 0 <= index < len(rules):
        return rules[index]
    rid = res.get("ruleId") or (res.get("rule") or {}).get("id")
    return next((r for r in rules if r.get("id") == rid), None)


def proper_superset(ctx, reg):
    def lines(r):
        start = r.get("startLine", 0)
        return (start, r.get("endLine", 0) or start, r.get("startColumn", 0) or 1, r.get("endColumn", 0) or float("inf"))
    if ctx.get("startLine", 0) >= 1 and reg.get("startLine", 0) >= 1:
        cs, ce, csc, cec = lines(ctx)
        rs, re_, rsc, rec = lines(reg)
        if cs > rs or ce < re_ or (cs == rs and csc > rsc) or (ce == re_ and cec < rec) or (cs, ce, csc, cec) == (rs, re_, rsc, rec):
            return False
    for off, length in (("charOffset", "charLength"), ("byteOffset", "byteLength")):
        if ctx.get(off, -1) >= 0 and reg.get(off, -1) >= 0:
            co, cl = ctx[off], max(ctx.get(length, 0), 0)
            ro, rl = reg[off], max(reg.get(length, 0), 0)
            if co > ro or co + cl < ro + rl or (co == ro and cl <= rl):
                return False
    return True


def main(paths):
    failed = False
    for path in paths:
        checker = Checker(path)
        try:
            with open(path, encoding="utf-8") as f:
                checker.log(json.load(f))
        except (OSError, ValueError) as e:
            checker.report("error", "JSON", "", str(e))
        for line in checker.findings:
            print(line)
        failed = failed or bool(checker.findings)
    return 1 if failed else 0


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1:]))
