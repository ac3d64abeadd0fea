//! The IAM policy files of a spec, rendered from the policy model in
//! `crate::policy`: the runtime policy and one per role, as principal-tag
//! (ABAC) policies and, for a given tenant, as STS session policies.

use crate::diagnostics::{Code, Diagnostic};
use crate::ir;

pub use crate::policy::model;
pub use crate::policy::{
    managed_policy_size, migration_policy, policy, policy_kinds, policy_pieces,
    session_policy_size, stream_policy, to_minified_json, to_pretty_json, AwsTarget, PolicyKind,
    PolicyPiece, TenantValue, CONTROL_TABLE_SUFFIX, MANAGED_POLICY_LIMIT, MAX_TAG_VALUE_LENGTH,
    SESSION_POLICY_LIMIT,
};

use super::GeneratedFile;

/// Options of [`render_iam`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IamOptions {
    /// The ARN parts.
    pub target: AwsTarget,
    /// Also write session policies with this tenant id.
    pub tenant: Option<String>,
}

/// The policy files of one spec: `<stem>.iam.json` (the runtime policy),
/// `<stem>.role.<role>.iam.json` per role, `<stem>.stream.iam.json` (the
/// stream handler's, when an aggregate is kept by the stream),
/// `<stem>.migration.iam.json` (the role of its migration jobs), and with a tenant id,
/// `<stem>.session.iam.json` and `<stem>.role.<role>.session.iam.json`
/// (compact JSON, as sent to STS) when the spec declares a tenant. A tenant
/// id the spec does not accept, or a session policy over STS's limit, is an
/// error.
pub fn render_iam(
    spec: &ir::Spec,
    stem: &str,
    options: &IamOptions,
) -> Result<Vec<GeneratedFile>, Diagnostic> {
    render_iam_with(spec, stem, options, &[])
}

/// [`render_iam`], with the migration jobs `singletable.lock` holds
/// pending: the migration role may also write what they write and read
/// what they read.
pub fn render_iam_with(
    spec: &ir::Spec,
    stem: &str,
    options: &IamOptions,
    migration_jobs: &[crate::evolve::Job],
) -> Result<Vec<GeneratedFile>, Diagnostic> {
    let session = match (&options.tenant, &spec.tenant) {
        (Some(id), Some(_)) => Some(validate_tenant(spec, id)?),
        // A spec without a tenant has no session policies.
        _ => None,
    };
    let mut files = Vec::new();
    for kind in policy_kinds(spec) {
        let name = match kind.role() {
            None => stem.to_owned(),
            Some(role) => format!("{stem}.role.{role}"),
        };
        let abac = policy(spec, kind, &options.target, &TenantValue::PrincipalTag);
        files.push(GeneratedFile {
            name: format!("{name}.iam.json"),
            contents: to_pretty_json(&abac),
        });
        // An admin role (it scans) holds no tenant's policy.
        let admin = match kind {
            PolicyKind::Role(role) => spec.is_admin_role(role),
            PolicyKind::Runtime => false,
        };
        if let (Some(id), false) = (&session, admin) {
            let document = policy(spec, kind, &options.target, &TenantValue::Id(id.clone()));
            let size = session_policy_size(&document);
            if size > SESSION_POLICY_LIMIT {
                return Err(Diagnostic::new(
                    Code::SessionPolicyTooLarge,
                    format!("the session policy `{name}` for tenant `{id}` has {size} characters, over STS's limit of {SESSION_POLICY_LIMIT}"),
                )
                .severity(crate::diagnostics::Severity::Error)
                .help("use the principal-tag policy, or split the role"));
            }
            let mut contents = to_minified_json(&document);
            contents.push('\n');
            files.push(GeneratedFile {
                name: format!("{name}.session.iam.json"),
                contents,
            });
        }
    }
    if let Some(stream) = stream_policy(spec, &options.target) {
        files.push(GeneratedFile {
            name: format!("{stem}.stream.iam.json"),
            contents: to_pretty_json(&stream),
        });
    }
    files.push(GeneratedFile {
        name: format!("{stem}.migration.iam.json"),
        contents: to_pretty_json(&migration_policy(spec, &options.target, migration_jobs)),
    });
    Ok(files)
}

/// Checks a tenant id against the spec's tenant rules, as the generated
/// `TenantId::new` does.
fn validate_tenant(spec: &ir::Spec, id: &str) -> Result<String, Diagnostic> {
    let invalid = |why: String| {
        Diagnostic::new(Code::InvalidValue, format!("tenant id `{id}`: {why}"))
            .help("give a tenant id that matches the spec's `tenant.id_pattern`")
    };
    let Some(tenant) = &spec.tenant else {
        return Ok(id.to_owned());
    };
    let length = id.chars().count();
    if length < tenant.min_length.max(1) || tenant.max_length.is_some_and(|max| length > max) {
        return Err(invalid(format!(
            "{length} characters, outside the spec's bounds"
        )));
    }
    if let Some(c) = id
        .chars()
        .find(|&c| !tenant.alphabet.contains(c) || matches!(c, '*' | '?' | '$') || c.is_control())
    {
        return Err(invalid(format!("{c:?} is not allowed in tenant ids")));
    }
    Ok(id.to_owned())
}
