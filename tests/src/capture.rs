//! A client that records what a repository asks DynamoDB, as IAM sees it,
//! instead of sending it: the action, the table or index, and the partition
//! keys (`dynamodb:LeadingKeys`). The IAM tests build their request matrix
//! from these, so the policies are checked against the keys the generated
//! repositories really produce.

use std::sync::{Arc, Mutex, PoisonError};

use sdk::config::interceptors::BeforeSerializationInterceptorContextRef;
use sdk::config::{ConfigBag, Intercept};
use sdk::error::BoxError;
use sdk::operation::batch_get_item::BatchGetItemInput;
use sdk::operation::batch_write_item::BatchWriteItemInput;
use sdk::operation::delete_item::DeleteItemInput;
use sdk::operation::get_item::GetItemInput;
use sdk::operation::put_item::PutItemInput;
use sdk::operation::query::QueryInput;
use sdk::operation::transact_write_items::TransactWriteItemsInput;
use sdk::operation::update_item::UpdateItemInput;
use sdk::types::AttributeValue;
use singletable_runtime::sdk;
use singletable_runtime::Item;

/// One request as IAM authorizes it. A transaction is authorized item by
/// item, so each of its items is a request of its own.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Request {
    /// What the repository was doing: an access pattern's name, or `entity`.
    pub label: String,
    /// The IAM action, e.g. `dynamodb:Query`.
    pub action: &'static str,
    /// The index queried, if any.
    pub index: Option<String>,
    /// The partition keys of the request.
    pub keys: Vec<String>,
}

/// One step of a scenario: what it was doing, how many requests it sent,
/// and how it ended.
#[derive(Debug, Clone)]
pub struct Step {
    /// The label of its requests.
    pub label: String,
    /// The requests it sent.
    pub requests: Vec<Request>,
    /// Its error, as `Debug` prints it; `None` when it succeeded.
    pub error: Option<String>,
}

impl Step {
    /// Whether the server refused it for want of permission.
    pub fn denied(&self) -> bool {
        self.error
            .as_deref()
            .is_some_and(|e| e.contains("AccessDenied"))
    }
}

/// Records requests; see [`Recorder::client`].
#[derive(Debug, Default)]
pub struct Recorder {
    label: Mutex<String>,
    requests: Mutex<Vec<Request>>,
    /// Where a live recorder's clients send, and as whom.
    live: Option<(String, sdk::config::Credentials)>,
    /// The requests recorded when the current label was set.
    labelled_at: Mutex<usize>,
    steps: Mutex<Vec<Step>>,
}

impl Recorder {
    /// A new recorder.
    pub fn new() -> Arc<Recorder> {
        Arc::new(Recorder::default())
    }

    /// A recorder whose clients send every request to `endpoint` as
    /// `credentials`, recording it first.
    pub fn live(endpoint: &str, credentials: sdk::config::Credentials) -> Arc<Recorder> {
        Arc::new(Recorder {
            live: Some((endpoint.to_owned(), credentials)),
            ..Recorder::default()
        })
    }

    /// A client whose every request is recorded and then fails before it is
    /// sent (a live recorder's: sent to its server). `partition_key` is the
    /// table's partition-key attribute.
    pub fn client(self: &Arc<Self>, partition_key: &'static str) -> sdk::Client {
        let (endpoint, credentials) = self.live.clone().unwrap_or_else(|| {
            let local = sdk::config::Credentials::new("local", "local", None, None, "static");
            ("http://127.0.0.1:9".to_owned(), local)
        });
        let config = sdk::Config::builder()
            .behavior_version(sdk::config::BehaviorVersion::latest())
            .region(sdk::config::Region::new("us-east-1"))
            .endpoint_url(endpoint)
            .credentials_provider(credentials)
            .retry_config(sdk::config::retry::RetryConfig::disabled())
            .interceptor(Capture {
                recorder: Arc::clone(self),
                partition_key,
            })
            .build();
        sdk::Client::from_conf(config)
    }

    /// Labels the requests recorded from now on.
    pub fn label(&self, label: &str) {
        *self.label.lock().unwrap_or_else(PoisonError::into_inner) = label.to_owned();
        *self
            .labelled_at
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = self.requests().len();
    }

    /// Ends the step labelled last with its result.
    pub fn outcome<T, E: std::fmt::Debug>(&self, result: &Result<T, E>) {
        let at = *self
            .labelled_at
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let step = Step {
            label: self
                .label
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .clone(),
            requests: self.requests()[at..].to_vec(),
            error: result.as_ref().err().map(|e| format!("{e:?}")),
        };
        self.steps
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(step);
    }

    /// The steps ended so far.
    pub fn steps(&self) -> Vec<Step> {
        self.steps
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The requests recorded so far.
    pub fn requests(&self) -> Vec<Request> {
        self.requests
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    fn record(&self, action: &'static str, index: Option<String>, keys: Vec<String>) {
        let label = self
            .label
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        self.requests
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(Request {
                label,
                action,
                index,
                keys,
            });
    }
}

#[derive(Debug)]
struct Capture {
    recorder: Arc<Recorder>,
    partition_key: &'static str,
}

impl Capture {
    fn key(&self, item: Option<&Item>) -> Vec<String> {
        item.and_then(|item| item.get(self.partition_key))
            .map(text)
            .into_iter()
            .collect()
    }
}

fn text(value: &AttributeValue) -> String {
    match value {
        AttributeValue::S(s) | AttributeValue::N(s) => s.clone(),
        other => format!("{other:?}"),
    }
}

impl Intercept for Capture {
    fn name(&self) -> &'static str {
        "singletable-tests capture"
    }

    fn read_before_execution(
        &self,
        context: &BeforeSerializationInterceptorContextRef<'_>,
        _cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let input = context.input();
        let rec = &self.recorder;
        if let Some(i) = input.downcast_ref::<GetItemInput>() {
            rec.record("dynamodb:GetItem", None, self.key(i.key.as_ref()));
        } else if let Some(i) = input.downcast_ref::<PutItemInput>() {
            rec.record("dynamodb:PutItem", None, self.key(i.item.as_ref()));
        } else if let Some(i) = input.downcast_ref::<UpdateItemInput>() {
            rec.record("dynamodb:UpdateItem", None, self.key(i.key.as_ref()));
        } else if let Some(i) = input.downcast_ref::<DeleteItemInput>() {
            rec.record("dynamodb:DeleteItem", None, self.key(i.key.as_ref()));
        } else if let Some(i) = input.downcast_ref::<QueryInput>() {
            // Generated queries write the partition-key equality as `#pk = :pk`.
            let condition = i.key_condition_expression.as_deref().unwrap_or_default();
            if !condition.starts_with("#pk = :pk") {
                return Err(format!("unexpected key condition `{condition}`").into());
            }
            let key = i
                .expression_attribute_values
                .as_ref()
                .and_then(|v| v.get(":pk"))
                .map(text);
            rec.record(
                "dynamodb:Query",
                i.index_name.clone(),
                key.into_iter().collect(),
            );
        } else if let Some(i) = input.downcast_ref::<BatchGetItemInput>() {
            let keys = i
                .request_items
                .iter()
                .flat_map(|m| m.values())
                .flat_map(|k| k.keys.iter())
                .flat_map(|k| self.key(Some(k)))
                .collect();
            rec.record("dynamodb:BatchGetItem", None, keys);
        } else if let Some(i) = input.downcast_ref::<BatchWriteItemInput>() {
            let keys = i
                .request_items
                .iter()
                .flat_map(|m| m.values())
                .flatten()
                .flat_map(|w| {
                    let put = w.put_request.as_ref().map(|p| &p.item);
                    let delete = w.delete_request.as_ref().map(|d| &d.key);
                    self.key(put.or(delete))
                })
                .collect();
            rec.record("dynamodb:BatchWriteItem", None, keys);
        } else if let Some(i) = input.downcast_ref::<TransactWriteItemsInput>() {
            for item in i.transact_items.iter().flatten() {
                if let Some(put) = &item.put {
                    rec.record("dynamodb:PutItem", None, self.key(Some(&put.item)));
                }
                if let Some(update) = &item.update {
                    rec.record("dynamodb:UpdateItem", None, self.key(Some(&update.key)));
                }
                if let Some(delete) = &item.delete {
                    rec.record("dynamodb:DeleteItem", None, self.key(Some(&delete.key)));
                }
                if let Some(check) = &item.condition_check {
                    rec.record(
                        "dynamodb:ConditionCheckItem",
                        None,
                        self.key(Some(&check.key)),
                    );
                }
            }
        } else {
            return Err("the IAM capture does not know this operation".into());
        }
        match rec.live {
            // A live recorder's request goes on to its server.
            Some(_) => Ok(()),
            None => Err("recorded for the IAM tests, not sent".into()),
        }
    }
}
