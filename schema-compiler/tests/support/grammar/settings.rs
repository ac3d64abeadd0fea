//! The table's settings of the generated spec: recovery, keys, class,
//! tags, insights, throughput, replicas and the resource-based policy,
//! mostly as DynamoDB takes them and sometimes as it refuses them.

use super::*;

impl Gen<'_> {
    /// Writes some of the table's settings.
    pub(super) fn settings(&mut self) {
        if self.c.sometimes() {
            let days = self.c.usual(&["14", "35"], &["0", "40"]);
            put!(self, 2, "point_in_time_recovery: {days}");
        }
        if self.c.sometimes() {
            let key = self.c.usual(
                &[
                    "aws_managed",
                    "alias/app-tables",
                    "arn:aws:kms:us-east-1:111122223333:key/mrk-0123456789abcdef",
                ],
                &[
                    "arn:aws:kms:us-east-1:111122223333:key/1234abcd-12ab",
                    "not a key",
                ],
            );
            put!(self, 2, "kms_key: \"{key}\"");
        }
        if self.c.rarely() {
            put!(self, 2, "table_class: standard_infrequent_access");
        }
        if self.c.rarely() {
            put!(self, 2, "tags: {{ team: core, \"cost:center\": \"42\" }}");
        }
        if self.c.rarely() {
            let mode = self
                .c
                .pick(&["throttled_keys", "accessed_and_throttled_keys"]);
            put!(self, 2, "contributor_insights: {mode}");
        }
        if self.c.sometimes() {
            let warm = self.c.usual(
                &["rates", "{ read: 15000 }", "{ read: 12000, write: 6000 }"],
                &["fast", "{ write: 0 }", "{}"],
            );
            put!(self, 2, "warm_throughput: {warm}");
        }
        if self.c.sometimes() {
            let replicas = self.c.usual(
                &[
                    "{ regions: [us-east-1, eu-west-1] }",
                    "{ regions: [ap-northeast-1] }",
                    "{ regions: [us-east-1, us-east-2, us-west-2], consistency: strong }",
                    "{ regions: [eu-west-1, eu-west-2], consistency: strong, witness: eu-central-1 }",
                ],
                &[
                    "{ regions: [us-east-1, us-east-2], consistency: strong }",
                    "{ regions: [us-east-1, eu-west-1], consistency: strong, witness: us-west-2 }",
                    "{ regions: [us-east-1, us-east-1] }",
                    "{ regions: [] }",
                    "{ regions: [us-east-1], witness: us-west-2 }",
                    "{ regions: [moon-base-1] }",
                ],
            );
            put!(self, 2, "replicas: {replicas}");
        }
        if self.c.sometimes() {
            let policy = self.c.usual(
                &[
                    "[{ Sid: DenyScan, Effect: Deny, Principal: \"*\", Action: dynamodb:Scan, Condition: { ArnNotEquals: { \"aws:PrincipalArn\": \"arn:aws:iam::111122223333:role/admin\" } } }]",
                    "[{ Effect: Allow, Principal: { AWS: [\"arn:aws:iam::111122223333:root\"] }, Action: [\"dynamodb:Get*\", dynamodb:Query], Resource: \"*\" }]",
                ],
                &[
                    "[]",
                    "[{ Effect: Maybe, Principal: \"*\", Action: dynamodb:Scan }]",
                    "[{ Effect: Deny, Action: dynamodb:Scans }]",
                    "[{ Effect: Deny, Principal: \"*\", NotAction: dynamodb:GetItem, Resource: \"arn:aws:dynamodb:us-east-1:1:table/Other\" }]",
                ],
            );
            put!(self, 2, "resource_policy: {policy}");
        }
    }
}
