use super::*;
use vertical_partitioning::*;

fn meta(org: &str, id: &str, updated: i64, chunks: i64) -> DocumentMeta {
    DocumentMeta {
        document_id: id.into(),
        title: format!("{id} of {org}"),
        owner_id: "ann".into(),
        status: Status::Draft,
        chunk_count: chunks,
        created_at: DateTime::from_secs(1_700_000_000),
        updated_at: DateTime::from_secs(updated),
        version: 0,
    }
}

fn chunk(org: &str, doc: &str, n: i64) -> DocumentBodyChunk {
    DocumentBodyChunk {
        document_id: doc.into(),
        chunk: n,
        text: format!("{org} {doc} chunk {n}"),
    }
}

#[tokio::test]
async fn every_pattern_returns_only_the_tenants_items() {
    let repo = Repository::new(client().await).with_table_name(server::unique_table("Docs"));
    repo.create_table().await.unwrap();
    let (a, b) = (
        TenantId::new("org1").unwrap(),
        TenantId::new("org10").unwrap(),
    );
    for org in [&a, &b] {
        let t = repo.for_tenant(org);
        let name = org.as_str();
        t.put_document_meta(&meta(name, "d1", 1_714_000_000, 12))
            .await
            .unwrap();
        t.put_document_meta(&meta(name, "d2", 1_714_500_000, 0))
            .await
            .unwrap();
        // 12 chunks: the padded integers must sort 2 before 10.
        for n in 0..12 {
            t.put_document_body_chunk(&chunk(name, "d1", n))
                .await
                .unwrap();
        }
        t.put_document_attachment(&DocumentAttachment {
            document_id: "d1".into(),
            attachment_id: "a1".into(),
            file_name: format!("{name}.pdf"),
            content_type: "application/pdf".into(),
            size_bytes: 1_024,
            object_key: format!("{name}/d1/a1"),
            uploaded_at: DateTime::from_secs(1_714_000_001),
        })
        .await
        .unwrap();
        t.put_document_share(&DocumentShare {
            document_id: "d1".into(),
            principal_id: format!("{name}-bob"),
            permission: Permission::Read,
            granted_at: DateTime::from_secs(1_714_000_002),
        })
        .await
        .unwrap();
    }
    let t = repo.for_tenant(&a);
    let whole = t.whole_document("d1").all().await.unwrap();
    assert_eq!(whole.len(), 15);
    // ATTACHMENT# < BODY# < META < SHARE#.
    assert!(
        matches!(&whole[0], WholeDocumentItem::DocumentAttachment(x) if x.file_name == "org1.pdf")
    );
    assert!(matches!(&whole[1], WholeDocumentItem::DocumentBodyChunk(x) if x.chunk == 0));
    assert_eq!(
        whole[13],
        WholeDocumentItem::DocumentMeta(meta("org1", "d1", 1_714_000_000, 12))
    );
    assert!(
        matches!(&whole[14], WholeDocumentItem::DocumentShare(x) if x.principal_id == "org1-bob")
    );
    assert_eq!(
        t.document_meta("d1").await.unwrap(),
        Some(meta("org1", "d1", 1_714_000_000, 12))
    );
    let body = t.document_body("d1").all().await.unwrap();
    assert_eq!(
        body,
        (0..12).map(|n| chunk("org1", "d1", n)).collect::<Vec<_>>()
    );
    assert_eq!(
        t.body_chunks_between("d1", 2, 10).all().await.unwrap(),
        (2..=10).map(|n| chunk("org1", "d1", n)).collect::<Vec<_>>()
    );
    let attachments = t.attachments("d1").all().await.unwrap();
    assert_eq!(attachments.len(), 1);
    assert_eq!(attachments[0].object_key, "org1/d1/a1");
    let shares = t.shares("d1").all().await.unwrap();
    assert_eq!(shares.len(), 1);
    assert_eq!(shares[0].principal_id, "org1-bob");
    assert_eq!(
        t.recent_documents().all().await.unwrap(),
        vec![
            meta("org1", "d2", 1_714_500_000, 0),
            meta("org1", "d1", 1_714_000_000, 12)
        ]
    );

    // edit_body: a new chunk and the meta item together.
    let mut edit = t.edit_body();
    edit.put_document_body_chunk(&chunk("org1", "d2", 0))
        .update_document_meta(
            &DocumentMetaKey {
                document_id: "d2".into(),
            },
            DocumentMetaUpdate::default()
                .chunk_count(1)
                .updated_at(DateTime::from_secs(1_714_600_000))
                .version(1),
        );
    edit.send().await.unwrap();
    assert_eq!(
        t.document_body("d2").all().await.unwrap(),
        vec![chunk("org1", "d2", 0)]
    );
    let recent = t.recent_documents().all().await.unwrap();
    assert_eq!(recent[0].document_id, "d2");
    assert_eq!(recent[0].chunk_count, 1);

    let mut metas = t.document_metas();
    for id in ["d1", "d2", "d3"] {
        metas.get_document_meta(&DocumentMetaKey {
            document_id: id.into(),
        });
    }
    let mut got = metas.all().await.unwrap();
    got.sort_by(|x, y| x.document_id.cmp(&y.document_id));
    assert_eq!(got.len(), 2);
    assert_eq!(got[0].title, "d1 of org1");
    assert_eq!(got[1].updated_at, DateTime::from_secs(1_714_600_000));
    assert!(repo
        .for_tenant(&b)
        .document_body("d2")
        .all()
        .await
        .unwrap()
        .is_empty());
}
