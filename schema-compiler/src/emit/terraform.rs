//! The Terraform configuration of a spec's table: an `aws_dynamodb_table`
//! rendered from the same [`create_table`] as
//! the CreateTable JSON and the CloudFormation template, its outputs, and
//! the IAM policies of `generate iam` as `aws_iam_policy` resources whose
//! ARNs name the table resource.
//!
//! The text is laid out as `terraform fmt` lays it out (the `=` of
//! consecutive attributes aligned, two-space indents), so `terraform fmt
//! -check` accepts it as written. Global secondary indexes always use
//! `key_schema` blocks, never the deprecated index-level `hash_key`.

use super::table::{
    create_table, update_time_to_live, CreateTable, OnDemandThroughput, SecondaryIndex,
    WarmThroughput,
};
use super::GeneratedFile;
use crate::ir::{self, ResourcePolicy};
use crate::naming;

/// The lowest AWS provider version whose `global_secondary_index` takes
/// `key_schema` blocks.
pub const AWS_PROVIDER: &str = ">= 6.29.0";

/// A block of HCL: its header (`resource "a" "b"`), its attributes (name
/// and rendered expression) and its nested blocks.
#[derive(Debug, Default)]
struct Block {
    header: String,
    attributes: Vec<(String, String)>,
    blocks: Vec<Block>,
}

impl Block {
    fn new(header: impl Into<String>) -> Block {
        Block {
            header: header.into(),
            ..Block::default()
        }
    }

    fn attr(mut self, name: &str, value: impl Into<String>) -> Block {
        self.attributes.push((name.to_owned(), value.into()));
        self
    }

    fn block(mut self, block: Block) -> Block {
        self.blocks.push(block);
        self
    }

    /// Appends the block at `depth` levels of indent: the attributes as one
    /// aligned run, then each nested block after a blank line.
    fn render(&self, depth: usize, out: &mut String) {
        let indent = "  ".repeat(depth);
        out.push_str(&format!("{indent}{} {{\n", self.header));
        // `terraform fmt` aligns the `=` of a run of attributes; a value of
        // several lines ends its run.
        let mut run: Vec<&(String, String)> = Vec::new();
        let flush = |run: &mut Vec<&(String, String)>, out: &mut String| {
            let width = run.iter().map(|(n, _)| n.len()).max().unwrap_or(0);
            for (name, value) in run.drain(..) {
                let pad = " ".repeat(width - name.len());
                out.push_str(&format!("{indent}  {name}{pad} = {value}\n"));
            }
        };
        for attribute in &self.attributes {
            let multiline = attribute.1.contains('\n');
            // An object over several lines stands alone; a heredoc's first
            // line is aligned with the run before it.
            if multiline && attribute.1.starts_with('{') {
                flush(&mut run, out);
            }
            run.push(attribute);
            if multiline {
                flush(&mut run, out);
            }
        }
        flush(&mut run, out);
        for (i, block) in self.blocks.iter().enumerate() {
            if i > 0 || !self.attributes.is_empty() {
                out.push('\n');
            }
            block.render(depth + 1, out);
        }
        out.push_str(&format!("{indent}}}\n"));
    }
}

/// `text` as an HCL string literal: quotes, backslashes and control
/// characters escaped, and the template sequences `${` and `%{` written as
/// literal text (`$${`, `%%{`).
pub fn string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    out.push_str(&template_literal(&escape_quoted(text)));
    out.push('"');
    out
}

fn escape_quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// Template sequences in `text` made literal.
fn template_literal(text: &str) -> String {
    text.replace("${", "$${").replace("%{", "%%{")
}

fn list(items: &[String]) -> String {
    let items: Vec<String> = items.iter().map(|i| string(i)).collect();
    format!("[{}]", items.join(", "))
}

/// The Terraform name of the spec's table resource: the file stem in
/// snake case (a letter first).
fn resource_name(stem: &str) -> String {
    let name = naming::snake(stem)
        .trim_start_matches("r#")
        .trim_start_matches('_')
        .to_owned();
    match name.chars().next() {
        Some(c) if c.is_ascii_alphabetic() => name,
        _ => format!("table_{name}"),
    }
}

fn key_schema(name: &str, key_type: &str) -> Block {
    Block::new("key_schema")
        .attr("attribute_name", string(name))
        .attr("key_type", string(key_type))
}

fn projection(mut block: Block, index: &SecondaryIndex) -> Block {
    block = block.attr("projection_type", string(index.projection.projection_type));
    if !index.projection.non_key_attributes.is_empty() {
        block = block.attr(
            "non_key_attributes",
            list(&index.projection.non_key_attributes),
        );
    }
    block
}

fn global_index(index: &SecondaryIndex) -> Block {
    let mut block = Block::new("global_secondary_index").attr("name", string(&index.index_name));
    block = projection(block, index);
    if let Some(t) = index.provisioned_throughput {
        block = block
            .attr("read_capacity", t.read_capacity_units.to_string())
            .attr("write_capacity", t.write_capacity_units.to_string());
    }
    for key in &index.key_schema {
        block = block.block(key_schema(&key.attribute_name, key.key_type));
    }
    if let Some(t) = index.on_demand_throughput {
        block = block.block(on_demand_block(t));
    }
    if let Some(t) = index.warm_throughput {
        block = block.block(warm_block(t));
    }
    block
}

fn on_demand_block(t: OnDemandThroughput) -> Block {
    let mut block = Block::new("on_demand_throughput");
    if let Some(read) = t.max_read_request_units {
        block = block.attr("max_read_request_units", read.to_string());
    }
    if let Some(write) = t.max_write_request_units {
        block = block.attr("max_write_request_units", write.to_string());
    }
    block
}

fn warm_block(t: WarmThroughput) -> Block {
    let mut block = Block::new("warm_throughput");
    if let Some(read) = t.read_units_per_second {
        block = block.attr("read_units_per_second", read.to_string());
    }
    if let Some(write) = t.write_units_per_second {
        block = block.attr("write_units_per_second", write.to_string());
    }
    block
}

/// A map of strings as an HCL object, its keys quoted and its `=` aligned,
/// at `depth` levels of indent.
fn object(pairs: &[(String, String)], depth: usize) -> String {
    let indent = "  ".repeat(depth);
    let keys: Vec<String> = pairs.iter().map(|(k, _)| string(k)).collect();
    let width = keys.iter().map(String::len).max().unwrap_or(0);
    let mut out = String::from("{\n");
    for (key, (_, value)) in keys.iter().zip(pairs) {
        let pad = " ".repeat(width - key.len());
        out.push_str(&format!("{indent}  {key}{pad} = {}\n", string(value)));
    }
    out.push_str(&format!("{indent}}}"));
    out
}

/// The `aws_dynamodb_contributor_insights` resources of the table and its
/// global indexes.
fn insights(spec: &ir::Spec, resource: &str) -> Vec<Block> {
    let Some(mode) = spec.table.settings.contributor_insights else {
        return Vec::new();
    };
    let mode = super::table::insights_mode_name(mode);
    let table = format!("aws_dynamodb_table.{resource}.name");
    let mut out = vec![Block::new(format!(
        "resource \"aws_dynamodb_contributor_insights\" {}",
        string(resource)
    ))
    .attr("table_name", table.clone())
    .attr("mode", string(mode))];
    let home = spec
        .table
        .settings
        .replicas
        .as_ref()
        .map(ir::Replicas::home);
    for index in spec
        .indexes
        .values()
        .filter(|i| i.kind == ir::IndexKind::Global)
    {
        let label = format!(
            "{resource}_{}",
            naming::snake(&index.name.value).trim_start_matches("r#")
        );
        out.push(
            Block::new(format!(
                "resource \"aws_dynamodb_contributor_insights\" {}",
                string(&label)
            ))
            .attr("table_name", table.clone())
            .attr("index_name", string(&index.name.value))
            .attr("mode", string(mode)),
        );
    }
    // A global table's insights are set in the table's own Region.
    match home {
        Some(region) => out
            .into_iter()
            .map(|b| b.attr("region", string(region)))
            .collect(),
        None => out,
    }
}

fn local_index(index: &SecondaryIndex) -> Block {
    let mut block = Block::new("local_secondary_index").attr("name", string(&index.index_name));
    if let Some(range) = index.key_schema.iter().find(|k| k.key_type == "RANGE") {
        block = block.attr("range_key", string(&range.attribute_name));
    }
    projection(block, index)
}

/// The `aws_dynamodb_table` resource.
fn table_resource(spec: &ir::Spec, name: &str) -> Block {
    let CreateTable {
        table_name,
        attribute_definitions,
        key_schema,
        local_secondary_indexes,
        global_secondary_indexes,
        billing_mode,
        provisioned_throughput,
        stream_specification,
        sse_specification,
        table_class,
        tags,
        on_demand_throughput,
        warm_throughput,
    } = create_table(spec);
    let mut table = Block::new(format!("resource \"aws_dynamodb_table\" {}", string(name)))
        .attr("name", string(&table_name));
    if let Some(replicas) = &spec.table.settings.replicas {
        // The table is created in the first Region whatever the provider's.
        table = table.attr("region", string(replicas.home()));
    }
    table = table.attr("billing_mode", string(billing_mode));
    if let Some(t) = provisioned_throughput {
        table = table
            .attr("read_capacity", t.read_capacity_units.to_string())
            .attr("write_capacity", t.write_capacity_units.to_string());
    }
    for key in &key_schema {
        let attribute = if key.key_type == "HASH" {
            "hash_key"
        } else {
            "range_key"
        };
        table = table.attr(attribute, string(&key.attribute_name));
    }
    if let Some(stream) = &stream_specification {
        table = table
            .attr("stream_enabled", "true")
            .attr("stream_view_type", string(stream.stream_view_type));
    }
    let protection = &spec.table.protection;
    table = table.attr(
        "deletion_protection_enabled",
        protection.deletion_protection.to_string(),
    );
    if let Some(class) = table_class {
        table = table.attr("table_class", string(class));
    }
    if !tags.is_empty() {
        let pairs: Vec<(String, String)> = tags
            .iter()
            .map(|t| (t.key.clone(), t.value.clone()))
            .collect();
        table = table.attr("tags", object(&pairs, 1));
    }
    for definition in &attribute_definitions {
        table = table.block(
            Block::new("attribute")
                .attr("name", string(&definition.attribute_name))
                .attr("type", string(definition.attribute_type)),
        );
    }
    for index in &global_secondary_indexes {
        table = table.block(global_index(index));
    }
    if let Some(t) = on_demand_throughput {
        table = table.block(on_demand_block(t));
    }
    if let Some(t) = warm_throughput {
        table = table.block(warm_block(t));
    }
    if let Some(days) = spec.table.settings.point_in_time_recovery {
        table = table.block(
            Block::new("point_in_time_recovery")
                .attr("enabled", "true")
                .attr("recovery_period_in_days", days.to_string()),
        );
    }
    let key = sse_specification
        .as_ref()
        .and_then(|sse| sse.kms_master_key_id.clone());
    if sse_specification.is_some() {
        let mut block = Block::new("server_side_encryption").attr("enabled", "true");
        if let Some(key) = &key {
            block = block.attr("kms_key_arn", string(key));
        }
        table = table.block(block);
    }
    for block in replica_blocks(spec, key.as_deref(), !tags.is_empty()) {
        table = table.block(block);
    }
    for index in &local_secondary_indexes {
        table = table.block(local_index(index));
    }
    if let Some(ttl) = update_time_to_live(spec) {
        table = table.block(
            Block::new("ttl")
                .attr(
                    "attribute_name",
                    string(&ttl.time_to_live_specification.attribute_name),
                )
                .attr("enabled", "true"),
        );
    }
    // CloudFormation keeps a retained table when the stack lets it go;
    // Terraform's nearest is to refuse to destroy it.
    if protection.deletion_policy == ResourcePolicy::Retain {
        table = table.block(Block::new("lifecycle").attr("prevent_destroy", "true"));
    }
    table
}

/// The `replica` blocks of a global table (every Region but the table's
/// own) and its `global_table_witness`.
fn replica_blocks(spec: &ir::Spec, key: Option<&str>, tags: bool) -> Vec<Block> {
    let Some(replicas) = &spec.table.settings.replicas else {
        return Vec::new();
    };
    let strong = replicas.consistency.value == ir::Consistency::Strong;
    let mut blocks: Vec<Block> = replicas.regions[1..]
        .iter()
        .map(|region| {
            let mut block = Block::new("replica").attr("region_name", string(region));
            if strong {
                block = block.attr("consistency_mode", string("STRONG"));
            }
            if let Some(key) = key {
                block = block.attr(
                    "kms_key_arn",
                    string(&super::cloudformation::replica_key(key, region)),
                );
            }
            if spec.table.settings.point_in_time_recovery.is_some() {
                block = block.attr("point_in_time_recovery", "true");
            }
            if tags {
                block = block.attr("propagate_tags", "true");
            }
            block.attr(
                "deletion_protection_enabled",
                spec.table.protection.deletion_protection.to_string(),
            )
        })
        .collect();
    if let Some(witness) = &replicas.witness {
        blocks.push(Block::new("global_table_witness").attr("region_name", string(witness)));
    }
    blocks
}

/// The `aws_dynamodb_resource_policy` of the table: the policy on one line,
/// without whitespace, as DynamoDB counts its size.
fn resource_policy(spec: &ir::Spec, resource: &str) -> Option<Block> {
    let statements = &spec.table.settings.resource_policy;
    if statements.is_empty() {
        return None;
    }
    let json = ir::resource_policy_document(statements).to_string();
    let mut block = Block::new(format!(
        "resource \"aws_dynamodb_resource_policy\" {}",
        string(resource)
    ));
    if let Some(replicas) = &spec.table.settings.replicas {
        block = block.attr("region", string(replicas.home()));
    }
    Some(
        block
            .attr("resource_arn", format!("aws_dynamodb_table.{resource}.arn"))
            .attr(
                "policy",
                format!("<<-EOT\n    {}\n  EOT", template_literal(&json)),
            ),
    )
}

fn output(name: &str, description: &str, value: String) -> Block {
    Block::new(format!("output {}", string(name)))
        .attr("description", string(description))
        .attr("value", value)
}

/// An IAM policy document as a heredoc whose ARNs of the spec's table are
/// the table resource's own (`${aws_dynamodb_table.t.arn}/index/*`), and
/// whose other placeholders are the provider's region and account.
fn policy_heredoc(json: &str, table_name: &str, resource: &str) -> (String, bool) {
    let literal = template_literal(json);
    let own = format!("arn:aws:dynamodb:REGION:ACCOUNT_ID:table/{table_name}");
    let mut text = literal.replace(&own, &format!("${{aws_dynamodb_table.{resource}.arn}}"));
    let needs_data = text.contains(":REGION:") || text.contains(":ACCOUNT_ID:");
    text = text
        .replace(":REGION:", ":${data.aws_region.current.region}:")
        .replace(
            ":ACCOUNT_ID:",
            ":${data.aws_caller_identity.current.account_id}:",
        );
    let mut out = String::from("<<-EOT\n");
    for line in text.lines() {
        out.push_str("    ");
        out.push_str(line);
        out.push('\n');
    }
    out.push_str("  EOT");
    (out, needs_data)
}

/// The IAM policies `generate iam` writes, as `aws_iam_policy` resources.
fn policies(spec: &ir::Spec, stem: &str, resource: &str) -> (Vec<Block>, bool) {
    let options = super::iam::IamOptions::default();
    let stem = naming::snake(stem);
    let stem = stem.as_str();
    // Without a tenant id there is no session policy, the one case that fails.
    let files = super::iam::render_iam(spec, stem, &options).unwrap_or_default();
    let table_name = &spec.table.name.value;
    let mut blocks = Vec::new();
    let mut needs_data = false;
    for file in files {
        let Some(kind) = file
            .name
            .strip_prefix(stem)
            .and_then(|rest| rest.strip_suffix(".iam.json"))
        else {
            continue;
        };
        let (label, what) = match kind.strip_prefix(".role.") {
            Some(role) => (
                format!("role_{}", naming::snake(role)),
                format!("role `{role}`"),
            ),
            None if kind.is_empty() => ("runtime".to_owned(), "the service".to_owned()),
            None => {
                let job = kind.trim_start_matches('.');
                (naming::snake(job), format!("the {job} jobs"))
            }
        };
        let label = label.trim_start_matches("r#").to_owned();
        let (policy, data) = policy_heredoc(&file.contents, table_name, resource);
        needs_data |= data;
        blocks.push(
            Block::new(format!(
                "resource \"aws_iam_policy\" {}",
                string(&format!("{resource}_{label}"))
            ))
            .attr(
                "name",
                string(&format!("{table_name}-{}", label.replace('_', "-"))),
            )
            .attr(
                "description",
                string(&format!(
                    "Access of {what} to the {table_name} table, as singletable generates it."
                )),
            )
            .attr("policy", policy),
        );
    }
    (blocks, needs_data)
}

/// The Terraform configuration of the spec whose file stem is `stem`:
/// `<stem>.tf`.
pub fn render_terraform(spec: &ir::Spec, stem: &str) -> GeneratedFile {
    let resource = resource_name(stem);
    let provider = Block::new("terraform").block(Block::new("required_providers").attr(
        "aws",
        format!(
            "{{\n      source  = \"hashicorp/aws\"\n      version = {}\n    }}",
            string(AWS_PROVIDER)
        ),
    ));
    let table_ref = format!("aws_dynamodb_table.{resource}");
    let mut outputs = vec![
        output(
            "table_name",
            "The table's name",
            format!("{table_ref}.name"),
        ),
        output("table_arn", "The table's ARN", format!("{table_ref}.arn")),
    ];
    if spec.table.stream.is_some() {
        outputs.push(output(
            "stream_arn",
            "The table stream's ARN",
            format!("{table_ref}.stream_arn"),
        ));
    }
    let (policies, needs_data) = policies(spec, stem, &resource);
    let mut blocks = vec![provider, table_resource(spec, &resource)];
    blocks.extend(resource_policy(spec, &resource));
    blocks.extend(insights(spec, &resource));
    if needs_data {
        blocks.push(Block::new("data \"aws_region\" \"current\""));
        blocks.push(Block::new("data \"aws_caller_identity\" \"current\""));
    }
    blocks.extend(policies);
    blocks.extend(outputs);
    let description = spec
        .description
        .clone()
        .or_else(|| spec.table.description.clone())
        .unwrap_or_else(|| format!("The {} table", spec.table.name.value));
    let mut text = String::new();
    for line in description.lines() {
        text.push_str(&format!("# {line}\n"));
    }
    text.push_str(&format!(
        "# Generated by singletable from {stem}.yaml: the table, its IAM policies and outputs.\n"
    ));
    for block in &blocks {
        text.push('\n');
        block.render(0, &mut text);
    }
    GeneratedFile {
        name: format!("{stem}.tf"),
        contents: text,
    }
}
