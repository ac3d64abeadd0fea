//! Page tokens end to end: a sharded scatter-gather query paged through
//! opaque tokens returns every item once, in order; per-item tokens resume
//! right after their item; a forged token, another tenant's, another
//! pattern's, another parameter set's and an expired one are refused
//! before any request is sent.

use futures_util::StreamExt;
use singletable_runtime::{Error, PageTokens, TokenError};
use singletable_tests::generated::pooled_product_catalog::*;
use singletable_tests::samples::product;
use singletable_tests::server;

/// A repository whose client can reach no server: a call that sends a
/// request fails with a service error, so a token error proves none was sent.
/// (The same table name: a token is bound to its table too.)
fn unreachable(table: &str) -> Repository {
    Repository::new(server::client("http://127.0.0.1:9")).with_table_name(table)
}

#[tokio::test]
async fn a_sharded_query_pages_through_tokens_and_refuses_foreign_ones() {
    let repo = Repository::new(server::client(&server::server().await.endpoint))
        .with_table_name(server::unique_table("Tokens"));
    repo.create_table().await.unwrap();
    let acme = TenantId::new("acme").unwrap();
    let globex = TenantId::new("globex").unwrap();
    let mut ids: Vec<String> = (0..230).map(|i| format!("sku-{i:04}")).collect();
    let mut batch = repo.for_tenant(&acme).import_products();
    for (i, id) in ids.iter().enumerate() {
        batch.put_product(&product(id, if i % 2 == 0 { "tools" } else { "toys" }));
    }
    batch.send().await.unwrap();
    let mut batch = repo.for_tenant(&globex).import_products();
    for id in &ids[..20] {
        batch.put_product(&product(id, "tools"));
    }
    batch.send().await.unwrap();
    ids.sort();

    let tokens = PageTokens::new(&[42; 32]);
    let t = repo.for_tenant(&acme);

    // Page by page, as an HTTP client would: each request carries only the
    // token of the page before.
    let mut token: Option<String> = None;
    let mut seen = Vec::new();
    let mut requests = 0;
    loop {
        let query = t.tenant_products().page_size(25).limit(40);
        let query = match &token {
            Some(token) => query.after_token(&tokens, token),
            None => query.with_tokens(&tokens),
        };
        let mut pages = Box::pin(query.pages());
        let mut last = None;
        while let Some(page) = pages.next().await {
            let page = page.unwrap();
            assert!(page.errors.is_empty(), "{:?}", page.errors);
            assert_eq!(page.next.is_some(), page.next_token.is_some());
            if let Some(token) = &page.next_token {
                assert!(
                    !token.contains("acme") && !token.contains("PRODUCT"),
                    "{token}"
                );
            }
            seen.extend(page.items.into_iter().map(|p| p.product_id));
            last = Some(page.next_token);
        }
        requests += 1;
        match last.flatten() {
            Some(next) => token = Some(next),
            None => break,
        }
        assert!(requests < 100, "no end");
    }
    assert_eq!(seen, ids, "every item once, in order, across the shards");
    assert_eq!(requests, 230_usize.div_ceil(40));

    // Per-item tokens: resuming from the token of item i returns what
    // follows item i.
    let page = Box::pin(
        t.tenant_products()
            .limit(12)
            .with_tokens(&tokens)
            .item_cursors()
            .pages(),
    )
    .next()
    .await
    .unwrap()
    .unwrap();
    assert_eq!(page.item_tokens.len(), page.items.len());
    assert_eq!(page.item_cursors.len(), page.items.len());
    for i in [0, 5, 11] {
        let rest: Vec<String> = t
            .tenant_products()
            .limit(3)
            .after_token(&tokens, &page.item_tokens[i])
            .all()
            .await
            .unwrap()
            .into_iter()
            .map(|p| p.product_id)
            .collect();
        assert_eq!(rest, ids[i + 1..i + 4], "after item {i}");
    }

    // Refused before any request: the same calls on a client that reaches
    // no server fail with the token's error, not a service error.
    let token = page.next_token.expect("more pages");
    refuses_foreign_tokens(&repo, &tokens, &token, (&acme, &globex)).await;
}

/// The same calls on a client that reaches no server fail with the
/// token's error, not a service error, for a token of another tenant,
/// pattern or parameters, forged, malformed or expired; the good token
/// reaches the (unreachable) server.
async fn refuses_foreign_tokens(
    repo: &Repository,
    tokens: &PageTokens,
    token: &str,
    (acme, globex): (&TenantId, &TenantId),
) {
    let nowhere = unreachable(repo.table_name());
    let t = repo.for_tenant(acme);
    let refused = |r: Result<Vec<Product>, Error>| match r {
        Err(Error::Token(e)) => e,
        other => panic!("not refused by its token: {other:?}"),
    };
    // The token is good: it is the tenant, pattern and parameters it was
    // issued for (the client reaching nowhere then fails on the request).
    assert!(matches!(
        nowhere
            .for_tenant(acme)
            .tenant_products()
            .after_token(tokens, token)
            .all()
            .await,
        Err(Error::Service(_))
    ));
    assert_eq!(
        refused(
            nowhere
                .for_tenant(globex)
                .tenant_products()
                .after_token(tokens, token)
                .all()
                .await
        ),
        TokenError::OtherTenant
    );
    assert_eq!(
        refused(
            nowhere
                .for_tenant(acme)
                .products_in_category("tools")
                .after_token(tokens, token)
                .all()
                .await
        ),
        TokenError::OtherPattern {
            token: "tenant_products".into(),
            query: "products_in_category"
        }
    );
    let tools = Box::pin(
        t.products_in_category("tools")
            .limit(3)
            .with_tokens(tokens)
            .pages(),
    )
    .next()
    .await
    .unwrap()
    .unwrap()
    .next_token
    .unwrap();
    assert_eq!(
        refused(
            nowhere
                .for_tenant(acme)
                .products_in_category("toys")
                .after_token(tokens, &tools)
                .all()
                .await
        ),
        TokenError::OtherParameters
    );
    assert_eq!(
        refused(
            nowhere
                .for_tenant(acme)
                .tenant_products()
                .after_token(&PageTokens::new(&[43; 32]), token)
                .all()
                .await
        ),
        TokenError::Forged
    );
    let mut forged = token.as_bytes().to_vec();
    let last = forged.len() - 1;
    forged[last] = if forged[last] == b'A' { b'B' } else { b'A' };
    assert!(matches!(
        refused(
            nowhere
                .for_tenant(acme)
                .tenant_products()
                .after_token(tokens, std::str::from_utf8(&forged).unwrap())
                .all()
                .await
        ),
        TokenError::Forged | TokenError::Malformed
    ));
    assert_eq!(
        refused(
            nowhere
                .for_tenant(acme)
                .tenant_products()
                .after_token(tokens, "TENANT#acme|S#1")
                .all()
                .await
        ),
        TokenError::Malformed
    );
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let strict = tokens.clone().max_age(std::time::Duration::ZERO);
    assert!(matches!(
        refused(
            nowhere
                .for_tenant(acme)
                .tenant_products()
                .after_token(&strict, token)
                .all()
                .await
        ),
        TokenError::Expired { .. }
    ));
}

/// `page(limit, token)` hands out what the loop over `pages()` above
/// assembles by hand: every item once, in order across the shards, each
/// page at most `limit` items however many requests it took, the last
/// page's `next_token` `None`. Without keys it fails before any request,
/// and a token of another tenant is refused as with `after_token`.
#[tokio::test]
async fn one_call_pages_walk_a_sharded_query() {
    let keys = PageTokens::new(&[42; 32]);
    let repo = Repository::new(server::client(&server::server().await.endpoint))
        .with_table_name(server::unique_table("OnePage"))
        .with_page_tokens(keys.clone());
    repo.create_table().await.unwrap();
    let acme = TenantId::new("acme").unwrap();
    let mut ids: Vec<String> = (0..95).map(|i| format!("sku-{i:04}")).collect();
    let mut batch = repo.for_tenant(&acme).import_products();
    for id in &ids {
        batch.put_product(&product(id, "tools"));
    }
    batch.send().await.unwrap();
    ids.sort();
    let t = repo.for_tenant(&acme);

    let mut token: Option<String> = None;
    let mut seen = Vec::new();
    let mut pages = 0;
    loop {
        // Seven items a request: a page of 20 takes several.
        let page = t
            .tenant_products()
            .page_size(7)
            .page(20, token.as_deref())
            .await
            .unwrap();
        assert!(page.errors.is_empty(), "{:?}", page.errors);
        assert!(page.items.len() <= 20);
        assert_eq!(page.next.is_some(), page.next_token.is_some());
        seen.extend(page.items.into_iter().map(|p| p.product_id));
        pages += 1;
        assert!(pages < 20, "no end");
        match page.next_token {
            Some(next) => token = Some(next),
            None => break,
        }
    }
    assert_eq!(seen, ids, "every item once, in order, across the shards");
    assert_eq!(pages, 5, "four full pages and the rest");

    // No keys: refused before any request (the client reaches nowhere).
    let nowhere = unreachable(repo.table_name());
    let keyless = nowhere
        .for_tenant(&acme)
        .tenant_products()
        .page(10, None)
        .await;
    assert!(
        matches!(
            keyless,
            Err(Error::NoPageKeys {
                pattern: "tenant_products"
            })
        ),
        "{keyless:?}"
    );
    // A token of acme's, handed to another tenant.
    let first = t.tenant_products().page(10, None).await.unwrap();
    let globex = TenantId::new("globex").unwrap();
    let foreign = unreachable(repo.table_name())
        .with_page_tokens(keys)
        .for_tenant(&globex)
        .tenant_products()
        .page(10, first.next_token.as_deref())
        .await;
    assert!(
        matches!(foreign, Err(Error::Token(TokenError::OtherTenant))),
        "{foreign:?}"
    );
}
