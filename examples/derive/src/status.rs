//! The `status` values of the spec as an enum of this crate: `Copy`, with
//! `as_str`, `FromStr` and `singletable_runtime::Attr`, like a generated enum.

/// A ticket's status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// `OPEN`
    Open,
    /// `CLOSED`
    Closed,
}

impl Status {
    /// The value as stored.
    pub fn as_str(&self) -> &'static str {
        match self {
            Status::Open => "OPEN",
            Status::Closed => "CLOSED",
        }
    }
}

impl core::str::FromStr for Status {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "OPEN" => Ok(Status::Open),
            "CLOSED" => Ok(Status::Closed),
            other => Err(format!("{other:?} is not a status")),
        }
    }
}

impl singletable_runtime::Attr for Status {
    fn to_av(&self) -> singletable_runtime::sdk::types::AttributeValue {
        singletable_runtime::sdk::types::AttributeValue::S(self.as_str().to_owned())
    }
    fn from_av(
        av: &singletable_runtime::sdk::types::AttributeValue,
    ) -> Result<Self, singletable_runtime::DecodeProblem> {
        let text = <String as singletable_runtime::Attr>::from_av(av)?;
        text.parse()
            .map_err(singletable_runtime::DecodeProblem::Invalid)
    }
}
