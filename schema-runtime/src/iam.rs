//! IAM policies for one tenant, from the templates generated code embeds.
//!
//! Each generated module has `IAM_POLICY` (what its repository does) and
//! `IAM_ROLE_POLICIES` (one per role of the spec): the same policies
//! `singletable generate iam` writes, as [`PolicyTemplate`]s. For the STS
//! AssumeRole approach of pooled multi-tenancy, pass the session policy of
//! a validated tenant to AssumeRole's `Policy` parameter, and the temporary
//! credentials can only reach that tenant's keys:
//!
//! ```ignore
//! let target = singletable_runtime::iam::AwsTarget::new("aws", "eu-west-1", "123456789012")?;
//! let policy = support_ticket::IAM_POLICY.session_policy(&tenant, &target)?;
//! sts.assume_role().role_arn(role).role_session_name(tenant.as_str()).policy(policy).send().await?;
//! ```

use std::fmt;

use crate::tenant::{TenantId, TenantRules};

/// The STS limit on a session policy, in characters.
pub const SESSION_POLICY_LIMIT: usize = 2_048;

/// A piece of a [`PolicyTemplate`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Piece {
    /// JSON text, as is.
    Text(&'static str),
    /// The tenant: its id in a session policy, the principal-tag variable otherwise.
    Tenant,
    /// The AWS partition of the ARNs.
    Partition,
    /// The region of the ARNs.
    Region,
    /// The account id of the ARNs.
    Account,
}

/// A generated IAM policy in compact JSON, with holes for the tenant and
/// the table's ARN parts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PolicyTemplate {
    /// The role's name; `None` for the policy of the whole repository.
    pub role: Option<&'static str>,
    /// The spec's IAM principal tag; `None` when the spec has no tenant.
    pub principal_tag: Option<&'static str>,
    /// The policy.
    pub pieces: &'static [Piece],
}

/// Where the table lives: the parts of its ARNs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AwsTarget {
    partition: String,
    region: String,
    account: String,
}

impl AwsTarget {
    /// A partition such as `aws`, a region such as `eu-west-1` (or `*`) and
    /// a 12-digit account id (or `*`).
    pub fn new(partition: &str, region: &str, account: &str) -> Result<AwsTarget, PolicyError> {
        let word = |s: &str| {
            !s.is_empty()
                && s.len() <= 32
                && s.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        };
        if !word(partition) {
            return Err(PolicyError::Partition(partition.to_owned()));
        }
        if region != "*" && !word(region) {
            return Err(PolicyError::Region(region.to_owned()));
        }
        if account != "*" && !(account.len() == 12 && account.chars().all(|c| c.is_ascii_digit())) {
            return Err(PolicyError::Account(account.to_owned()));
        }
        Ok(AwsTarget {
            partition: partition.to_owned(),
            region: region.to_owned(),
            account: account.to_owned(),
        })
    }
}

/// Why a policy could not be made.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum PolicyError {
    /// Not an AWS partition name.
    Partition(String),
    /// Not a region name.
    Region(String),
    /// Not a 12-digit account id.
    Account(String),
    /// The spec has no tenant, so its policies have no session variant.
    NoTenant,
    /// The session policy is longer than STS accepts.
    TooLarge {
        /// Its length in characters.
        size: usize,
        /// The limit.
        limit: usize,
    },
}

impl fmt::Display for PolicyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PolicyError::Partition(p) => write!(f, "`{p}` is not an AWS partition such as `aws`"),
            PolicyError::Region(r) => write!(f, "`{r}` is not an AWS region such as `eu-west-1`"),
            PolicyError::Account(a) => write!(f, "`{a}` is not a 12-digit AWS account id"),
            PolicyError::NoTenant => f.write_str("the spec declares no tenant"),
            PolicyError::TooLarge { size, limit } => write!(
                f,
                "the session policy has {size} characters, more than the {limit} STS accepts"
            ),
        }
    }
}

impl std::error::Error for PolicyError {}

impl PolicyTemplate {
    /// The session policy for one tenant: the tenant's id in place of the
    /// principal-tag variable, compact JSON, at most
    /// [`SESSION_POLICY_LIMIT`] characters.
    pub fn session_policy<R: TenantRules>(
        &self,
        tenant: &TenantId<R>,
        target: &AwsTarget,
    ) -> Result<String, PolicyError> {
        if self.principal_tag.is_none() {
            return Err(PolicyError::NoTenant);
        }
        // A validated id has no IAM wildcard; escape anyway, as the compiler does.
        let mut value = String::new();
        for c in tenant.as_str().chars() {
            match c {
                '*' => value.push_str("${*}"),
                '?' => value.push_str("${?}"),
                '$' => value.push_str("${$}"),
                c => value.push(c),
            }
        }
        let policy = self.render(&value, target);
        let size = policy.chars().count();
        if size > SESSION_POLICY_LIMIT {
            return Err(PolicyError::TooLarge {
                size,
                limit: SESSION_POLICY_LIMIT,
            });
        }
        Ok(policy)
    }

    /// The principal-tag (ABAC) policy as compact JSON: the tenant is
    /// `${aws:PrincipalTag/<tag>}`, resolved by IAM for each request.
    pub fn principal_tag_policy(&self, target: &AwsTarget) -> String {
        let variable = self
            .principal_tag
            .map(|tag| format!("${{aws:PrincipalTag/{tag}}}"))
            .unwrap_or_default();
        self.render(&variable, target)
    }

    fn render(&self, tenant: &str, target: &AwsTarget) -> String {
        let mut out = String::new();
        for piece in self.pieces {
            match piece {
                Piece::Text(text) => out.push_str(text),
                Piece::Tenant => push_json_str_content(&mut out, tenant),
                Piece::Partition => out.push_str(&target.partition),
                Piece::Region => out.push_str(&target.region),
                Piece::Account => out.push_str(&target.account),
            }
        }
        out
    }
}

/// Writes `s` as the inside of a JSON string, escaped as `serde_json` does.
fn push_json_str_content(out: &mut String, s: &str) {
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if u32::from(c) < 0x20 => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Rules;
    impl TenantRules for Rules {
        const MIN_LENGTH: usize = 1;
        const MAX_LENGTH: usize = 8;
        const ALPHABET: &'static [(char, char)] = &[('"', '"'), ('0', '9'), ('a', 'z')];
    }

    const TEMPLATE: PolicyTemplate = PolicyTemplate {
        role: None,
        principal_tag: Some("TenantId"),
        pieces: &[
            Piece::Text("{\"r\":\"arn:"),
            Piece::Partition,
            Piece::Text(":dynamodb:"),
            Piece::Region,
            Piece::Text(":"),
            Piece::Account,
            Piece::Text(":table/T\",\"k\":\"T#"),
            Piece::Tenant,
            Piece::Text("|*\"}"),
        ],
    };

    #[test]
    fn fills_the_tenant_and_the_arn_parts() {
        let target = AwsTarget::new("aws", "eu-west-1", "123456789012").unwrap();
        let tenant = TenantId::<Rules>::new("acme1").unwrap();
        assert_eq!(
            TEMPLATE.session_policy(&tenant, &target).unwrap(),
            r#"{"r":"arn:aws:dynamodb:eu-west-1:123456789012:table/T","k":"T#acme1|*"}"#
        );
        assert_eq!(
            TEMPLATE.principal_tag_policy(&target),
            r#"{"r":"arn:aws:dynamodb:eu-west-1:123456789012:table/T","k":"T#${aws:PrincipalTag/TenantId}|*"}"#
        );
        let quoted = TenantId::<Rules>::new("a\"b").unwrap();
        assert!(TEMPLATE
            .session_policy(&quoted, &target)
            .unwrap()
            .contains(r#""T#a\"b|*""#));
    }

    #[test]
    fn refuses_bad_arn_parts_and_oversized_policies() {
        assert_eq!(
            AwsTarget::new("aws", "EU", "123456789012"),
            Err(PolicyError::Region("EU".into()))
        );
        assert_eq!(
            AwsTarget::new("aws", "*", "1234"),
            Err(PolicyError::Account("1234".into()))
        );
        assert!(AwsTarget::new("aws", "*", "*").is_ok());
        let text: &'static str = Box::leak("x".repeat(SESSION_POLICY_LIMIT).into_boxed_str());
        let pieces: &'static [Piece] = Box::leak(vec![Piece::Text(text), Piece::Tenant].into());
        let big = PolicyTemplate {
            role: None,
            principal_tag: Some("TenantId"),
            pieces,
        };
        let target = AwsTarget::new("aws", "*", "*").unwrap();
        let tenant = TenantId::<Rules>::new("a").unwrap();
        assert_eq!(
            big.session_policy(&tenant, &target),
            Err(PolicyError::TooLarge {
                size: SESSION_POLICY_LIMIT + 1,
                limit: SESSION_POLICY_LIMIT
            })
        );
    }
}
