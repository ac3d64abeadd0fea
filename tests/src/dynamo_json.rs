//! DynamoDB JSON (`{"S": "…"}`, `{"N": "12"}`) read into the SDK's items,
//! for comparing what other tools show with what the repositories read.

use serde_json::Value;
use singletable_runtime::sdk::primitives::Blob;
use singletable_runtime::sdk::types::AttributeValue;
use singletable_runtime::Item;

fn base64_decode(text: &str) -> Result<Vec<u8>, String> {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut bits = 0u32;
    let mut count = 0;
    let mut out = Vec::new();
    for c in text.bytes().filter(|&c| c != b'=') {
        let v = ALPHABET
            .iter()
            .position(|&a| a == c)
            .ok_or_else(|| format!("{text:?} is not base64"))? as u32;
        bits = (bits << 6) | v;
        count += 6;
        if count >= 8 {
            count -= 8;
            out.push((bits >> count) as u8);
        }
    }
    Ok(out)
}

/// One attribute value.
pub fn attribute_value(v: &Value) -> Result<AttributeValue, String> {
    let map = v
        .as_object()
        .filter(|m| m.len() == 1)
        .ok_or_else(|| format!("{v} is not DynamoDB JSON"))?;
    let (tag, inner) = map.iter().next().ok_or("empty value")?;
    let text = || {
        inner
            .as_str()
            .map(str::to_owned)
            .ok_or_else(|| format!("{v}: not a string"))
    };
    let texts = || -> Result<Vec<String>, String> {
        inner
            .as_array()
            .ok_or_else(|| format!("{v}: not a list"))?
            .iter()
            .map(|s| {
                s.as_str()
                    .map(str::to_owned)
                    .ok_or_else(|| format!("{v}: not a string"))
            })
            .collect()
    };
    Ok(match tag.as_str() {
        "S" => AttributeValue::S(text()?),
        "N" => AttributeValue::N(text()?),
        "B" => AttributeValue::B(Blob::new(base64_decode(&text()?)?)),
        "BOOL" => AttributeValue::Bool(inner.as_bool().ok_or("BOOL is not a boolean")?),
        "NULL" => AttributeValue::Null(true),
        "M" => AttributeValue::M(item(inner)?),
        "L" => AttributeValue::L(
            inner
                .as_array()
                .ok_or("L is not a list")?
                .iter()
                .map(attribute_value)
                .collect::<Result<_, _>>()?,
        ),
        "SS" => AttributeValue::Ss(texts()?),
        "NS" => AttributeValue::Ns(texts()?),
        other => return Err(format!("unknown type {other}")),
    })
}

/// One item.
pub fn item(v: &Value) -> Result<Item, String> {
    v.as_object()
        .ok_or_else(|| format!("{v} is not an item"))?
        .iter()
        .map(|(k, v)| Ok((k.clone(), attribute_value(v)?)))
        .collect()
}

/// The item with each set's elements in one order: DynamoDB keeps no order
/// in a set, so items are compared as the sets they hold.
pub fn normalized(mut item: Item) -> Item {
    for value in item.values_mut() {
        match value {
            AttributeValue::Ss(v) | AttributeValue::Ns(v) => v.sort(),
            AttributeValue::Bs(v) => v.sort_by(|a, b| a.as_ref().cmp(b.as_ref())),
            _ => {}
        }
    }
    item
}
