//! The Terraform output, checked by the real tools and against the other
//! outputs: for every spec in `schemas/` and every passing fixture,
//! `terraform fmt -check` accepts `<stem>.tf` as written, HashiCorp's HCL
//! parser (`@cdktf/hcl2json`, installed by `scripts/iac-check/install`,
//! named by `SINGLETABLE_IAC_TOOLS`) reads it back, and what it holds is
//! what the CloudFormation template and the IAM policies of the same spec
//! hold: table, keys, attribute types, indexes with their projections and
//! capacity, stream, TTL, deletion protection, retention, and every policy
//! document statement for statement.

mod support;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use singletable::emit::iam::IamOptions;
use singletable::Compiler;

fn temp_dir(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("singletable-tf-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create temp dir");
    dir
}

/// A tool the test needs: present, or (outside CI) a reason to skip.
fn required(what: &str, found: Option<PathBuf>) -> Option<PathBuf> {
    match found {
        Some(path) => Some(path),
        None if std::env::var_os("CI").is_some() => {
            panic!("CI must run the Terraform checks: {what} is missing (scripts/test sets it up)")
        }
        None => {
            eprintln!(
                "{what} is missing: the Terraform checks are skipped (scripts/test runs them)"
            );
            None
        }
    }
}

fn terraform() -> Option<PathBuf> {
    let found = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|p| p.join("terraform"))
            .find(|p| p.is_file())
    });
    required("terraform (on the machine image)", found)
}

fn hcl2json() -> Option<PathBuf> {
    let tools = std::env::var_os("SINGLETABLE_IAC_TOOLS").map(PathBuf::from);
    required(
        "SINGLETABLE_IAC_TOOLS (scripts/iac-check/install)",
        tools.filter(|t| t.join("node/node_modules/@cdktf/hcl2json").is_dir()),
    )
}

/// Every `.tf` file of `dir` parsed by hcl2json, by file name.
fn parse_all(tools: &Path, dir: &Path) -> serde_json::Map<String, Value> {
    let script = r#"
const { parse } = require(process.argv[1] + "/node/node_modules/@cdktf/hcl2json");
const fs = require("fs"), path = require("path");
(async () => {
  const out = {};
  for (const f of fs.readdirSync(process.argv[2]).filter(f => f.endsWith(".tf")).sort()) {
    out[f] = await parse(f, fs.readFileSync(path.join(process.argv[2], f), "utf8"));
  }
  process.stdout.write(JSON.stringify(out));
})().catch(e => { console.error(e); process.exit(1); });
"#;
    let out = Command::new("node")
        .args(["-e", script])
        .arg(tools)
        .arg(dir)
        .output()
        .expect("node runs");
    assert!(
        out.status.success(),
        "hcl2json failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    match serde_json::from_slice(&out.stdout).expect("hcl2json prints JSON") {
        Value::Object(map) => map,
        other => panic!("not a map: {other}"),
    }
}

fn arr(v: &Value) -> Vec<Value> {
    v.as_array().cloned().unwrap_or_default()
}

/// The Terraform index blocks as CloudFormation writes indexes.
fn tf_index(index: &Value, global: bool) -> Value {
    let key_schema: Vec<Value> = if global {
        arr(&index["key_schema"])
            .iter()
            .map(|k| serde_json::json!({"AttributeName": k["attribute_name"], "KeyType": k["key_type"]}))
            .collect()
    } else {
        Vec::new()
    };
    let mut projection = serde_json::json!({"ProjectionType": index["projection_type"]});
    if let Some(attributes) = index.get("non_key_attributes") {
        projection["NonKeyAttributes"] = attributes.clone();
    }
    let mut out = serde_json::json!({"IndexName": index["name"], "Projection": projection});
    if global {
        out["KeySchema"] = Value::Array(key_schema);
    } else {
        out["RangeKey"] = index["range_key"].clone();
    }
    if let (Some(r), Some(w)) = (index.get("read_capacity"), index.get("write_capacity")) {
        out["ProvisionedThroughput"] =
            serde_json::json!({"ReadCapacityUnits": r, "WriteCapacityUnits": w});
    }
    settings_of_tf(index, &mut out);
    out
}

/// The throughput blocks of a Terraform table or index as CloudFormation
/// writes them.
fn settings_of_tf(block: &Value, out: &mut Value) {
    if let Some(t) = block.get("on_demand_throughput") {
        out["OnDemandThroughput"] = renamed(
            &t[0],
            &[
                ("max_read_request_units", "MaxReadRequestUnits"),
                ("max_write_request_units", "MaxWriteRequestUnits"),
            ],
        );
    }
    if let Some(t) = block.get("warm_throughput") {
        out["WarmThroughput"] = renamed(
            &t[0],
            &[
                ("read_units_per_second", "ReadUnitsPerSecond"),
                ("write_units_per_second", "WriteUnitsPerSecond"),
            ],
        );
    }
}

fn settings_of_cfn(properties: &Value, out: &mut Value) {
    for name in ["OnDemandThroughput", "WarmThroughput"] {
        if let Some(t) = properties.get(name) {
            out[name] = t.clone();
        }
    }
}

fn renamed(object: &Value, names: &[(&str, &str)]) -> Value {
    let mut out = serde_json::Map::new();
    for (ours, theirs) in names {
        if let Some(v) = object.get(*ours) {
            out.insert((*theirs).to_owned(), v.clone());
        }
    }
    Value::Object(out)
}

/// CloudFormation's index as [`tf_index`] writes it.
fn cfn_index(index: &Value, global: bool) -> Value {
    let mut out =
        serde_json::json!({"IndexName": index["IndexName"], "Projection": index["Projection"]});
    if global {
        out["KeySchema"] = index["KeySchema"].clone();
    } else {
        let range = arr(&index["KeySchema"])
            .into_iter()
            .find(|k| k["KeyType"] == "RANGE")
            .map(|k| k["AttributeName"].clone());
        out["RangeKey"] = range.unwrap_or(Value::Null);
    }
    if let Some(t) = index.get("ProvisionedThroughput") {
        out["ProvisionedThroughput"] = t.clone();
    }
    settings_of_cfn(index, &mut out);
    out
}

/// A template's `AWS::DynamoDB::GlobalTable` as the `AWS::DynamoDB::Table`
/// of its first replica: the settings each replica holds read from the
/// first, a provisioned write capacity from its auto scaling (held at the
/// declared capacity). A template with a `Table` is returned as it is.
fn as_table(cfn: &Value) -> Value {
    let table = &cfn["Resources"]["Table"];
    if table["Type"] != "AWS::DynamoDB::GlobalTable" {
        return cfn.clone();
    }
    let g = &table["Properties"];
    let r0 = &g["Replicas"][0];
    let mut p = serde_json::json!({});
    for name in [
        "TableName",
        "AttributeDefinitions",
        "KeySchema",
        "LocalSecondaryIndexes",
        "BillingMode",
        "StreamSpecification",
        "TimeToLiveSpecification",
        "WarmThroughput",
    ] {
        if let Some(v) = g.get(name) {
            p[name] = v.clone();
        }
    }
    for name in [
        "DeletionProtectionEnabled",
        "PointInTimeRecoverySpecification",
        "TableClass",
        "Tags",
        "ContributorInsightsSpecification",
        "ResourcePolicy",
    ] {
        if let Some(v) = r0.get(name) {
            p[name] = v.clone();
        }
    }
    if let Some(sse) = g.get("SSESpecification") {
        let mut sse = sse.clone();
        if let Some(key) = r0.get("SSESpecification") {
            sse["KMSMasterKeyId"] = key["KMSMasterKeyId"].clone();
        }
        p["SSESpecification"] = sse;
    }
    let throughput = |out: &mut Value, writes: &Value, reads: &Value| {
        if let Some(w) = writes.get("WriteProvisionedThroughputSettings") {
            let scaling = &w["WriteCapacityAutoScalingSettings"];
            assert_eq!(
                scaling["MinCapacity"], scaling["MaxCapacity"],
                "held capacity"
            );
            out["ProvisionedThroughput"] = serde_json::json!({
                "ReadCapacityUnits": reads["ReadProvisionedThroughputSettings"]["ReadCapacityUnits"],
                "WriteCapacityUnits": scaling["MinCapacity"],
            });
        }
        let mut on_demand = serde_json::Map::new();
        if let Some(r) = reads.get("ReadOnDemandThroughputSettings") {
            on_demand.insert(
                "MaxReadRequestUnits".into(),
                r["MaxReadRequestUnits"].clone(),
            );
        }
        if let Some(w) = writes.get("WriteOnDemandThroughputSettings") {
            on_demand.insert(
                "MaxWriteRequestUnits".into(),
                w["MaxWriteRequestUnits"].clone(),
            );
        }
        if !on_demand.is_empty() {
            out["OnDemandThroughput"] = Value::Object(on_demand);
        }
    };
    throughput(&mut p, g, r0);
    let indexes: Vec<Value> = arr(&g["GlobalSecondaryIndexes"])
        .iter()
        .map(|index| {
            let here = arr(&r0["GlobalSecondaryIndexes"])
                .into_iter()
                .find(|i| i["IndexName"] == index["IndexName"])
                .unwrap_or_else(|| serde_json::json!({}));
            let mut out = serde_json::json!({
                "IndexName": index["IndexName"],
                "KeySchema": index["KeySchema"],
                "Projection": index["Projection"],
            });
            if let Some(w) = index.get("WarmThroughput") {
                out["WarmThroughput"] = w.clone();
            }
            if let Some(c) = here.get("ContributorInsightsSpecification") {
                out["ContributorInsightsSpecification"] = c.clone();
            }
            throughput(&mut out, index, &here);
            out
        })
        .collect();
    if !indexes.is_empty() {
        p["GlobalSecondaryIndexes"] = Value::Array(indexes);
    }
    let mut out = cfn.clone();
    out["Resources"]["Table"]["Properties"] = p;
    out
}

/// A global table's Regions, consistency, witness and per-replica keys and
/// recovery as Terraform writes them: the table's `region`, a `replica`
/// block per other Region, a `global_table_witness`.
fn compare_replicas(stem: &str, resource: &Value, cfn: &Value) {
    let table = &cfn["Resources"]["Table"];
    if table["Type"] != "AWS::DynamoDB::GlobalTable" {
        assert!(
            resource.get("replica").is_none(),
            "{stem}: replicas without a GlobalTable"
        );
        return;
    }
    let g = &table["Properties"];
    let replicas = arr(&g["Replicas"]);
    assert_eq!(
        resource["region"], replicas[0]["Region"],
        "{stem}: the table's Region"
    );
    let strong = g.get("MultiRegionConsistency") == Some(&Value::from("STRONG"));
    let ours = arr(&resource["replica"]);
    assert_eq!(
        ours.len() + 1,
        replicas.len(),
        "{stem}: one replica block per other Region"
    );
    for (block, replica) in ours.iter().zip(&replicas[1..]) {
        assert_eq!(
            block["region_name"], replica["Region"],
            "{stem}: replica Region"
        );
        assert_eq!(
            block.get("consistency_mode") == Some(&Value::from("STRONG")),
            strong,
            "{stem}: consistency"
        );
        assert_eq!(
            block.get("kms_key_arn"),
            replica
                .get("SSESpecification")
                .map(|s| &s["KMSMasterKeyId"]),
            "{stem}: the replica's key"
        );
        assert_eq!(
            block.get("point_in_time_recovery") == Some(&Value::Bool(true)),
            replica.get("PointInTimeRecoverySpecification").is_some(),
            "{stem}: the replica's recovery"
        );
        assert_eq!(
            block["deletion_protection_enabled"], replica["DeletionProtectionEnabled"],
            "{stem}: the replica's protection"
        );
    }
    let witness = |v: &Value| arr(v).first().cloned();
    assert_eq!(
        witness(&resource["global_table_witness"]).map(|w| w["region_name"].clone()),
        witness(&g["GlobalTableWitnesses"]).map(|w| w["Region"].clone()),
        "{stem}: the witness"
    );
}

/// The `aws_dynamodb_resource_policy` says what the template's
/// `ResourcePolicy` says.
fn compare_resource_policy(stem: &str, tf: &Value, p: &Value) {
    let ours = tf["resource"]["aws_dynamodb_resource_policy"]
        .as_object()
        .and_then(|m| m.values().next())
        .map(|v| {
            let text = v[0]["policy"].as_str().expect("a policy string");
            serde_json::from_str::<Value>(&text.replace("$${", "${").replace("%%{", "%{"))
                .expect("the policy is JSON")
        });
    let theirs = p.get("ResourcePolicy").map(|r| r["PolicyDocument"].clone());
    assert_eq!(ours, theirs, "{stem}: the resource-based policy");
}

fn compare_table(stem: &str, tf: &Value, cfn: &Value) {
    let global = cfn;
    let cfn = &as_table(cfn);
    let resource = tf["resource"]["aws_dynamodb_table"]
        .as_object()
        .and_then(|m| m.values().next())
        .map(|v| &v[0])
        .unwrap_or_else(|| panic!("{stem}.tf has no aws_dynamodb_table"));
    let table = &cfn["Resources"]["Table"];
    let p = &table["Properties"];
    assert_eq!(resource["name"], p["TableName"], "{stem}: name");
    assert_eq!(
        resource["billing_mode"], p["BillingMode"],
        "{stem}: billing"
    );
    let keys = arr(&p["KeySchema"]);
    let key = |t: &str| {
        keys.iter()
            .find(|k| k["KeyType"] == t)
            .map_or(Value::Null, |k| k["AttributeName"].clone())
    };
    assert_eq!(resource["hash_key"], key("HASH"), "{stem}: hash key");
    assert_eq!(
        resource.get("range_key").cloned().unwrap_or(Value::Null),
        key("RANGE"),
        "{stem}: range key"
    );
    let tf_attributes: BTreeSet<(String, String)> = arr(&resource["attribute"])
        .iter()
        .map(|a| (a["name"].to_string(), a["type"].to_string()))
        .collect();
    let cfn_attributes: BTreeSet<(String, String)> = arr(&p["AttributeDefinitions"])
        .iter()
        .map(|a| {
            (
                a["AttributeName"].to_string(),
                a["AttributeType"].to_string(),
            )
        })
        .collect();
    assert_eq!(
        tf_attributes, cfn_attributes,
        "{stem}: attribute definitions"
    );
    for (tf_name, cfn_name, global) in [
        ("global_secondary_index", "GlobalSecondaryIndexes", true),
        ("local_secondary_index", "LocalSecondaryIndexes", false),
    ] {
        let ours: Vec<Value> = arr(&resource[tf_name])
            .iter()
            .map(|i| tf_index(i, global))
            .collect();
        let theirs: Vec<Value> = arr(&p[cfn_name])
            .iter()
            .map(|i| cfn_index(i, global))
            .collect();
        assert_eq!(ours, theirs, "{stem}: {tf_name}");
    }
    match p.get("ProvisionedThroughput") {
        Some(t) => {
            assert_eq!(resource["read_capacity"], t["ReadCapacityUnits"], "{stem}");
            assert_eq!(
                resource["write_capacity"], t["WriteCapacityUnits"],
                "{stem}"
            );
        }
        None => assert!(resource.get("read_capacity").is_none(), "{stem}"),
    }
    match p.get("StreamSpecification") {
        Some(s) => {
            assert_eq!(resource["stream_enabled"], Value::Bool(true), "{stem}");
            assert_eq!(resource["stream_view_type"], s["StreamViewType"], "{stem}");
        }
        None => assert!(resource.get("stream_enabled").is_none(), "{stem}"),
    }
    match p.get("TimeToLiveSpecification") {
        Some(ttl) => {
            let ours = &resource["ttl"][0];
            assert_eq!(ours["attribute_name"], ttl["AttributeName"], "{stem}: ttl");
            assert_eq!(ours["enabled"], ttl["Enabled"], "{stem}: ttl");
        }
        None => assert!(resource.get("ttl").is_none(), "{stem}: ttl"),
    }
    assert_eq!(
        resource["deletion_protection_enabled"], p["DeletionProtectionEnabled"],
        "{stem}: deletion protection"
    );
    compare_settings(stem, tf, resource, p);
    compare_replicas(stem, resource, global);
    compare_resource_policy(stem, tf, p);
    let retained = table["DeletionPolicy"] == "Retain";
    let prevent = resource["lifecycle"][0]["prevent_destroy"] == Value::Bool(true);
    assert_eq!(
        prevent, retained,
        "{stem}: a retained table is never destroyed"
    );
}

/// Recovery, encryption, class, tags, throughput limits and Contributor
/// Insights (table and every global index) as CloudFormation sets them.
fn compare_settings(stem: &str, tf: &Value, resource: &Value, p: &Value) {
    let mut ours = serde_json::json!({});
    let mut theirs = serde_json::json!({});
    settings_of_tf(resource, &mut ours);
    settings_of_cfn(p, &mut theirs);
    if let Some(pitr) = resource.get("point_in_time_recovery") {
        ours["PointInTimeRecoverySpecification"] = renamed(
            &pitr[0],
            &[
                ("enabled", "PointInTimeRecoveryEnabled"),
                ("recovery_period_in_days", "RecoveryPeriodInDays"),
            ],
        );
    }
    if let Some(sse) = resource.get("server_side_encryption") {
        let mut value = serde_json::json!({"SSEEnabled": sse[0]["enabled"], "SSEType": "KMS"});
        if let Some(key) = sse[0].get("kms_key_arn") {
            value["KMSMasterKeyId"] = key.clone();
        }
        ours["SSESpecification"] = value;
    }
    if let Some(class) = resource.get("table_class") {
        ours["TableClass"] = class.clone();
    }
    if let Some(tags) = resource.get("tags").and_then(Value::as_object) {
        // hcl2json keeps an object's keys sorted; CloudFormation's order is the spec's.
        let mut list: Vec<Value> = tags
            .iter()
            .map(|(k, v)| serde_json::json!({"Key": k, "Value": v}))
            .collect();
        list.sort_by_key(|t| t["Key"].to_string());
        ours["Tags"] = Value::Array(list);
    }
    for name in [
        "PointInTimeRecoverySpecification",
        "SSESpecification",
        "TableClass",
    ] {
        if let Some(v) = p.get(name) {
            theirs[name] = v.clone();
        }
    }
    if let Some(tags) = p.get("Tags") {
        let mut list = arr(tags);
        list.sort_by_key(|t| t["Key"].to_string());
        theirs["Tags"] = Value::Array(list);
    }
    assert_eq!(ours, theirs, "{stem}: table settings");
    // Contributor Insights: a resource per table and global index in
    // Terraform, a property of each in CloudFormation.
    let mut ours: Vec<(Value, Value)> = tf["resource"]["aws_dynamodb_contributor_insights"]
        .as_object()
        .map(|m| {
            m.values()
                .map(|v| {
                    (
                        v[0].get("index_name").cloned().unwrap_or(Value::Null),
                        v[0]["mode"].clone(),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    let mut theirs: Vec<(Value, Value)> = Vec::new();
    if let Some(c) = p.get("ContributorInsightsSpecification") {
        theirs.push((Value::Null, c["Mode"].clone()));
    }
    for index in arr(&p["GlobalSecondaryIndexes"]) {
        if let Some(c) = index.get("ContributorInsightsSpecification") {
            theirs.push((index["IndexName"].clone(), c["Mode"].clone()));
        }
    }
    ours.sort_by_key(|(i, _)| i.to_string());
    theirs.sort_by_key(|(i, _)| i.to_string());
    assert_eq!(ours, theirs, "{stem}: contributor insights");
}

/// Each IAM policy file of the spec is an `aws_iam_policy` whose document,
/// with the table resource's ARN written out as `generate iam` writes it,
/// is the same JSON.
fn compare_policies(stem: &str, tf: &Value, iam: &[(String, String)], table: &str) {
    let resources = tf["resource"]["aws_dynamodb_table"]
        .as_object()
        .expect("a table resource");
    let resource = resources.keys().next().expect("one table resource");
    let reference = format!("${{aws_dynamodb_table.{resource}.arn}}");
    let arn = format!("arn:aws:dynamodb:REGION:ACCOUNT_ID:table/{table}");
    let policies: Vec<Value> = tf["resource"]["aws_iam_policy"]
        .as_object()
        .map(|m| m.values().map(|v| v[0]["policy"].clone()).collect())
        .unwrap_or_default();
    assert_eq!(
        policies.len(),
        iam.len(),
        "{stem}: one aws_iam_policy per policy file"
    );
    let ours: BTreeSet<String> = policies
        .iter()
        .map(|p| {
            let text = p.as_str().expect("a policy string");
            assert!(
                !text.contains("REGION"),
                "{stem}: an ARN left as a placeholder"
            );
            let text = text
                .replace(&reference, &arn)
                .replace("$${", "${")
                .replace("%%{", "%{");
            let value: Value = serde_json::from_str(&text)
                .unwrap_or_else(|e| panic!("{stem}: a policy that is not JSON ({e}): {text}"));
            value.to_string()
        })
        .collect();
    let theirs: BTreeSet<String> = iam
        .iter()
        .map(|(_, contents)| {
            serde_json::from_str::<Value>(contents)
                .expect("JSON")
                .to_string()
        })
        .collect();
    assert_eq!(ours, theirs, "{stem}: the policies");
}

#[test]
fn terraform_is_formatted_and_says_what_cloudformation_and_iam_say() {
    let (Some(terraform), Some(tools)) = (terraform(), hcl2json()) else {
        return;
    };
    let dir = temp_dir("agree");
    let mut specs = support::spec_paths();
    specs.extend(support::fixture_paths("pass"));
    let mut expected = Vec::new();
    for path in &specs {
        let mut compiler = Compiler::new();
        compiler.file(path);
        let tf = compiler.generate_terraform().expect("a passing spec");
        let table = compiler.generate_table().expect("a passing spec");
        let iam = compiler
            .generate_iam(&IamOptions::default())
            .expect("policies");
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        std::fs::write(dir.join(&tf[0].name), &tf[0].contents).expect("write");
        let cfn = table
            .iter()
            .find(|f| f.name.ends_with(".cloudformation.json"))
            .expect("a template");
        let cfn: Value = serde_json::from_str(&cfn.contents).expect("JSON");
        let iam: Vec<(String, String)> = iam.into_iter().map(|f| (f.name, f.contents)).collect();
        expected.push((stem, tf[0].name.clone(), cfn, iam));
    }
    let fmt = Command::new(&terraform)
        .args(["fmt", "-check", "-diff", "-no-color"])
        .arg(&dir)
        .output()
        .expect("terraform runs");
    assert!(
        fmt.status.success(),
        "terraform fmt -check refuses: {}{}",
        String::from_utf8_lossy(&fmt.stdout),
        String::from_utf8_lossy(&fmt.stderr)
    );
    let parsed = parse_all(&tools, &dir);
    assert_eq!(parsed.len(), expected.len());
    for (stem, file, cfn, iam) in &expected {
        let tf = &parsed[file];
        compare_table(stem, tf, cfn);
        let table = cfn["Resources"]["Table"]["Properties"]["TableName"]
            .as_str()
            .expect("a name");
        compare_policies(stem, tf, iam, table);
        assert_eq!(
            tf["output"]["table_name"][0]["value"],
            Value::String(format!(
                "${{aws_dynamodb_table.{}.name}}",
                tf["resource"]["aws_dynamodb_table"]
                    .as_object()
                    .unwrap()
                    .keys()
                    .next()
                    .unwrap()
            )),
            "{stem}: the table_name output"
        );
    }
    assert!(expected.len() >= 40, "{} specs", expected.len());
}
