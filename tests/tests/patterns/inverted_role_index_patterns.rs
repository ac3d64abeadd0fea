use super::*;
use inverted_role_index::*;

fn user(tenant: &str, id: &str) -> User {
    User {
        user_id: id.into(),
        email: format!("{id}@{tenant}.example"),
        display_name: format!("{id} of {tenant}"),
    }
}

fn role(tenant: &str, name: &str) -> Role {
    Role {
        role: name.into(),
        description: Some(format!("{name} of {tenant}")),
        permissions: vec![format!("{tenant}:{name}:read")],
    }
}

fn assignment(tenant: &str, user: &str, role: &str) -> RoleAssignment {
    RoleAssignment {
        user_id: user.into(),
        role: role.into(),
        granted_by: format!("{tenant}-root"),
        granted_at: DateTime::from_secs(1_714_564_800),
    }
}

async fn seed(repo: &Repository, tenant: &TenantId) {
    let t = repo.for_tenant(tenant);
    let name = tenant.as_str();
    for id in ["u1", "u2"] {
        t.put_user(&user(name, id)).await.unwrap();
    }
    for r in ["admin", "editor"] {
        t.put_role(&role(name, r)).await.unwrap();
    }
    for (u, r) in [("u1", "admin"), ("u1", "editor"), ("u2", "editor")] {
        t.put_role_assignment(&assignment(name, u, r))
            .await
            .unwrap();
    }
}

#[tokio::test]
async fn every_pattern_returns_only_the_tenants_items() {
    let repo = Repository::new(client().await).with_table_name(server::unique_table("Roles"));
    repo.create_table().await.unwrap();
    let (a, b) = (
        TenantId::new("acme").unwrap(),
        TenantId::new("acme-2").unwrap(),
    );
    seed(&repo, &a).await;
    seed(&repo, &b).await;
    let t = repo.for_tenant(&a);

    let key = UserKey {
        user_id: "u1".into(),
    };
    assert_eq!(
        t.user(&key.user_id).await.unwrap(),
        Some(user("acme", "u1"))
    );
    assert_eq!(
        t.user_roles("u1").all().await.unwrap(),
        vec![
            assignment("acme", "u1", "admin"),
            assignment("acme", "u1", "editor")
        ]
    );
    // The sort keys order the collection: `…|ROLE#…` before `…|USER#…`.
    assert_eq!(
        t.user_with_roles("u1").all().await.unwrap(),
        vec![
            UserWithRolesItem::RoleAssignment(assignment("acme", "u1", "admin")),
            UserWithRolesItem::RoleAssignment(assignment("acme", "u1", "editor")),
            UserWithRolesItem::User(user("acme", "u1")),
        ]
    );
    assert_eq!(
        t.role_members("editor").all().await.unwrap(),
        vec![
            assignment("acme", "u1", "editor"),
            assignment("acme", "u2", "editor")
        ]
    );
    assert_eq!(
        t.admins().all().await.unwrap(),
        vec![assignment("acme", "u1", "admin")]
    );
    assert_eq!(
        t.role_with_members("editor").all().await.unwrap(),
        vec![
            RoleWithMembersItem::Role(role("acme", "editor")),
            RoleWithMembersItem::RoleAssignment(assignment("acme", "u1", "editor")),
            RoleWithMembersItem::RoleAssignment(assignment("acme", "u2", "editor")),
        ]
    );

    // grant_role: creates the assignment only when the user and the role
    // exist and the assignment does not.
    let mut grant = t.grant_role();
    grant
        .create_role_assignment(&assignment("acme", "u2", "admin"))
        .check_user(&UserKey {
            user_id: "u2".into(),
        })
        .check_role(&RoleKey {
            role: "admin".into(),
        });
    grant.send().await.unwrap();
    assert_eq!(t.admins().all().await.unwrap().len(), 2);
    assert_eq!(repo.for_tenant(&b).admins().all().await.unwrap().len(), 1);
    let mut again = t.grant_role();
    again
        .create_role_assignment(&assignment("acme", "u2", "admin"))
        .check_user(&UserKey {
            user_id: "u2".into(),
        })
        .check_role(&RoleKey {
            role: "admin".into(),
        });
    assert_canceled(again.send().await);
    // A user of tenant A does not satisfy tenant B's check.
    t.put_user(&user("acme", "only-a")).await.unwrap();
    let mut cross = repo.for_tenant(&b).grant_role();
    cross
        .create_role_assignment(&assignment("acme-2", "only-a", "editor"))
        .check_user(&UserKey {
            user_id: "only-a".into(),
        })
        .check_role(&RoleKey {
            role: "editor".into(),
        });
    assert_canceled(cross.send().await);
    assert!(repo
        .for_tenant(&b)
        .user_roles("only-a")
        .all()
        .await
        .unwrap()
        .is_empty());

    // revoke_roles: a batch of deletes, for tenant A only.
    let mut revoke = t.revoke_roles();
    for u in ["u1", "u2"] {
        revoke.delete_role_assignment(&RoleAssignmentKey {
            user_id: u.into(),
            role: "editor".into(),
        });
    }
    revoke.send().await.unwrap();
    assert!(t.role_members("editor").all().await.unwrap().is_empty());
    assert_eq!(
        repo.for_tenant(&b)
            .role_members("editor")
            .all()
            .await
            .unwrap()
            .len(),
        2
    );
}
