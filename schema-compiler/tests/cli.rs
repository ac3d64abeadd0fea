//! The `singletable` command line: exit codes, output formats, help.
#![cfg(feature = "cli")]

mod support;

use std::path::PathBuf;

use assert_cmd::Command;
use support::workspace_root as root;

fn singletable() -> Command {
    let mut cmd = Command::cargo_bin("singletable").expect("binary is built with the cli feature");
    cmd.current_dir(root());
    cmd
}

fn write_temp(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("singletable-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write temp spec");
    path
}

fn support_ticket_with(from: &str, to: &str) -> String {
    let text = std::fs::read_to_string(root().join("schemas/support_ticket.yaml")).expect("spec");
    assert!(text.contains(from), "fixture text `{from}` not found");
    text.replacen(from, to, 1)
}

#[test]
fn clean_spec_exits_zero_and_prints_nothing() {
    let out = singletable()
        .args(["check", "schemas/shopping_cart.yaml"])
        .output()
        .expect("runs");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stdout.is_empty() && out.stderr.is_empty());
}

#[test]
fn warnings_do_not_fail_unless_denied() {
    // The support-ticket design has one warning (IAM cannot police GSI writes).
    let out = singletable()
        .args(["check", "schemas/support_ticket.yaml"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("gsi_write_isolation") && stderr.contains("0 error(s), 1 warning(s)"),
        "{stderr}"
    );
    let out = singletable()
        .args(["check", "--deny-warnings", "schemas/support_ticket.yaml"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn explain_prints_each_access_pattern_request() {
    let out = singletable()
        .args(["check", "--explain", "schemas/support_ticket.yaml"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&out.stdout);
    for pattern in [
        "ticket_with_comments",
        "ticket_summary",
        "open_tickets",
        "open_tickets_for_resolver",
        "close_tickets",
        "ticket_counts_by_status",
    ] {
        assert!(
            stdout.contains(&format!("\n{pattern}\n")),
            "{pattern} missing:\n{stdout}"
        );
    }
    assert!(stdout.contains("Query on SupportTicket index GSI1"));
    assert!(stdout.contains("KeyConditionExpression: #pk = :pk AND #sk = :sk"));
    assert!(stdout.contains(":pk=\"TENANT#<tenant>|OPEN\""));
    assert!(stdout.contains("TransactWriteItems"));
    // How each placeholder is read back out of its key.
    assert!(stdout.contains("<tenant> (tenant)        alphabet (read up to `|TICKET#`)"));
    assert!(stdout.contains("<id>                     ends the key (read to the end)"));
    assert!(stdout.contains("<created_at>             fixed width (read by its width)"));
}

#[test]
fn misspelled_placeholder_reports_location_label_and_suggestion() {
    let path = write_temp(
        "typo.yaml",
        &support_ticket_with(
            "TENANT#<tenant>|TICKET#<id>\", sk: SUMMARY",
            "TENANT#<tenent>|TICKET#<id>\", sk: SUMMARY",
        ),
    );
    let out = singletable()
        .args(["check", "--format", "json"])
        .arg(&path)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON output");
    // The one error; the checks still report on the entities the typo does
    // not touch (the spec's one warning).
    let errors: Vec<&serde_json::Value> = json
        .as_array()
        .expect("array")
        .iter()
        .filter(|d| d["severity"] == "error")
        .collect();
    assert_eq!(errors.len(), 1, "{json}");
    let first = errors[0];
    assert_eq!(first["code"], "singletable::unknown_placeholder");
    assert_eq!(first["help"], "did you mean `tenant`?");
    let text = std::fs::read_to_string(&path).expect("read back");
    let line = text
        .lines()
        .position(|l| l.contains("<tenent>"))
        .expect("typo line")
        + 1;
    let column = text
        .lines()
        .nth(line - 1)
        .and_then(|l| l.find("<tenent>"))
        .expect("typo column")
        + 1;
    assert_eq!(first["line"], line);
    assert_eq!(first["column"], column);
    assert_eq!(first["labels"][0]["length"], "<tenent>".len());

    let out = singletable()
        .arg("check")
        .arg(&path)
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("unknown placeholder `<tenent>`"),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("typo.yaml:{line}:{column}")),
        "{stderr}"
    );
    assert!(stderr.contains("did you mean `tenant`?"), "{stderr}");
}

#[test]
fn three_independent_mistakes_are_all_reported() {
    let text = support_ticket_with(
        "TENANT#<tenant>|TICKET#<ticket_id>",
        "TENANT#<tenant>|TICKET#<ticketid>",
    )
    .replacen("index: GSI1", "index: GSI9", 1)
    .replacen("returns: TicketCount", "returns: TicketCounts", 1);
    let path = write_temp("three.yaml", &text);
    let out = singletable()
        .args(["check", "--format", "json"])
        .arg(&path)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON output");
    let codes: Vec<&str> = json
        .as_array()
        .expect("array")
        .iter()
        .filter(|d| d["severity"] == "error")
        .map(|d| d["code"].as_str().expect("code"))
        .collect();
    assert_eq!(
        codes,
        [
            "singletable::unknown_placeholder",
            "singletable::unknown_index",
            "singletable::unknown_entity"
        ]
    );
}

#[test]
fn missing_file_exits_two() {
    let out = singletable()
        .args(["check", "does/not/exist.yaml"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read"));
}

#[test]
fn usage_error_exits_two() {
    let out = singletable().args(["check"]).output().expect("runs");
    assert_eq!(out.status.code(), Some(2));
    let out = singletable().args(["frobnicate"]).output().expect("runs");
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn schema_command_prints_the_checked_in_schema() {
    let out = singletable().arg("schema").output().expect("runs");
    assert_eq!(out.status.code(), Some(0));
    let printed: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let checked_in: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("schemas/singletable.schema.json"))
            .expect("schema file"),
    )
    .expect("JSON");
    assert_eq!(printed, checked_in);
}

#[test]
fn help_is_stable() {
    let out = singletable().arg("--help").output().expect("runs");
    insta::assert_snapshot!("help", String::from_utf8_lossy(&out.stdout));
    let out = singletable()
        .args(["check", "--help"])
        .output()
        .expect("runs");
    insta::assert_snapshot!("check_help", String::from_utf8_lossy(&out.stdout));
}

#[test]
fn generate_iam_writes_policies_and_session_policies() {
    let dir = std::env::temp_dir().join(format!("singletable-cli-iam-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = singletable()
        .args([
            "generate",
            "iam",
            "schemas/support_ticket.yaml",
            "schemas/shopping_cart.yaml",
        ])
        .args([
            "--region",
            "eu-west-1",
            "--account",
            "123456789012",
            "--tenant",
            "acme",
            "-o",
        ])
        .arg(&dir)
        .output()
        .expect("runs");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("written")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "shopping_cart.iam.json",
            "shopping_cart.migration.iam.json",
            "support_ticket.iam.json",
            "support_ticket.migration.iam.json",
            "support_ticket.role.agent.iam.json",
            "support_ticket.role.agent.session.iam.json",
            "support_ticket.role.tenant_admin.iam.json",
            "support_ticket.role.tenant_admin.session.iam.json",
            "support_ticket.session.iam.json",
            "support_ticket.stream.iam.json",
        ]
    );
    let session =
        std::fs::read_to_string(dir.join("support_ticket.session.iam.json")).expect("read");
    assert!(session.contains(r#"["TENANT#acme|*"]"#), "{session}");
    assert!(session.contains("arn:aws:dynamodb:eu-west-1:123456789012:table/SupportTicket"));

    // Without --out-dir: one JSON object of file name to policy.
    let out = singletable()
        .args(["generate", "iam", "schemas/photo_site.yaml"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0));
    let printed: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(
        printed["photo_site.iam.json"]["Statement"][0]["Condition"]["ForAllValues:StringLike"]
            ["dynamodb:LeadingKeys"][0],
        "USER#${aws:PrincipalTag/UserId}|*"
    );
}

#[test]
fn generate_iam_refuses_bad_tenants_and_arn_parts() {
    let out = singletable()
        .args([
            "generate",
            "iam",
            "schemas/support_ticket.yaml",
            "--tenant",
            "a|b",
        ])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("tenant id `a|b`"));
    let out = singletable()
        .args([
            "generate",
            "iam",
            "schemas/support_ticket.yaml",
            "--region",
            "EU",
        ])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not an AWS region"));
}

#[test]
fn generate_help_is_stable() {
    let out = singletable()
        .args(["generate", "iam", "--help"])
        .output()
        .expect("runs");
    insta::assert_snapshot!("generate_iam_help", String::from_utf8_lossy(&out.stdout));
}
