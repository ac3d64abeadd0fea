//! Every access pattern of the specs that have no test file of their own, end
//! to end. Each test writes the same items for two tenants (or two owners,
//! where a spec has no tenant), with values that name their owner, runs each
//! pattern for the first and asserts it returns exactly the first's items.

use singletable_runtime::sdk::types::AttributeValue;
use singletable_runtime::{DateTime, Decimal, Error, Item};
use singletable_tests::generated::*;
use singletable_tests::server;
use singletable_tests::server::put_stored;

async fn client() -> singletable_runtime::sdk::Client {
    server::client(&server::server().await.endpoint)
}

fn decimal(text: &str) -> Decimal {
    text.parse().expect("a decimal")
}

/// The canceled-transaction error, or a panic naming what came instead.
fn assert_canceled(result: Result<(), Error>) {
    assert!(
        matches!(result, Err(Error::TransactionCanceled(_))),
        "expected a canceled transaction, got {result:?}"
    );
}

mod inverted_role_index_patterns {
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
        assert_eq!(t.user(&key).await.unwrap(), Some(user("acme", "u1")));
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
}

mod iot_device_reports_patterns {
    use super::*;
    use iot_device_reports::*;

    const T0: i64 = 1_714_564_800_000;

    fn report(device: &str, offset_ms: i64, escalated_to: Option<&str>) -> DeviceReport {
        DeviceReport {
            device_id: device.into(),
            reported_at: DateTime::from_millis(T0 + offset_ms),
            status: if escalated_to.is_some() {
                Status::Fault
            } else {
                Status::Ok
            },
            temperature_c: decimal("21.5"),
            battery_percent: 90 - offset_ms % 50,
            fault_code: escalated_to.map(|_| format!("E-{device}")),
            escalated_to: escalated_to.map(str::to_owned),
            escalated_at: escalated_to.map(|_| DateTime::from_secs(T0 / 1000 + 60)),
        }
    }

    #[tokio::test]
    async fn every_pattern_returns_only_the_devices_items() {
        let repo = Repository::new(client().await).with_table_name(server::unique_table("Devices"));
        repo.create_table().await.unwrap();
        let mut expected = Vec::new();
        for device in ["DEV-A", "DEV-B"] {
            repo.put_device(&Device {
                device_id: device.into(),
                model: format!("model of {device}"),
                site: "plant 1".into(),
                installed_at: DateTime::from_secs(1_700_000_000),
            })
            .await
            .unwrap();
            for (i, escalation) in [None, Some("tech-1"), None, Some("tech-2"), None]
                .into_iter()
                .enumerate()
            {
                let item = report(device, i as i64 * 1_000 + 7, escalation);
                repo.put_device_report(&item).await.unwrap();
                if device == "DEV-A" {
                    expected.push(item);
                }
            }
        }

        let got = repo
            .device(&DeviceKey {
                device_id: "DEV-A".into(),
            })
            .await
            .unwrap()
            .expect("the device");
        assert_eq!(got.model, "model of DEV-A");
        assert_eq!(
            repo.device_reports_between(
                "DEV-A",
                DateTime::from_millis(T0 + 1_007),
                DateTime::from_millis(T0 + 3_007)
            )
            .all()
            .await
            .unwrap(),
            expected[1..4].to_vec()
        );
        let mut newest_first = expected.clone();
        newest_first.reverse();
        assert_eq!(
            repo.latest_device_reports("DEV-A").all().await.unwrap(),
            newest_first
        );
        assert_eq!(
            repo.latest_device_reports("DEV-A")
                .limit(2)
                .all()
                .await
                .unwrap(),
            newest_first[..2].to_vec()
        );

        // The technician index is sparse: only escalated reports are in it,
        // from every device.
        let tech1 = repo
            .escalations_for_technician("tech-1")
            .all()
            .await
            .unwrap();
        assert_eq!(tech1.len(), 2);
        assert!(tech1
            .iter()
            .all(|r| r.escalated_to.as_deref() == Some("tech-1")));
        let recent = repo
            .recent_escalations_for_technician("tech-2", DateTime::from_millis(T0))
            .all()
            .await
            .unwrap();
        assert_eq!(recent.len(), 2);
        assert!(recent
            .iter()
            .all(|r| r.escalated_to.as_deref() == Some("tech-2")));
        assert!(repo
            .recent_escalations_for_technician("tech-2", DateTime::from_millis(T0 + 3_007))
            .all()
            .await
            .unwrap()
            .is_empty());

        // Escalating a report puts it into the index; clearing takes it out.
        let key = expected[0].key();
        repo.update_device_report(
            &key,
            DeviceReportUpdate::default().escalated_to(Some("tech-3".to_owned())),
        )
        .await
        .unwrap();
        assert_eq!(
            repo.escalations_for_technician("tech-3")
                .all()
                .await
                .unwrap()
                .len(),
            1
        );
        repo.update_device_report(&key, DeviceReportUpdate::default().escalated_to(None))
            .await
            .unwrap();
        assert!(repo
            .escalations_for_technician("tech-3")
            .all()
            .await
            .unwrap()
            .is_empty());
    }
}

mod monthly_activity_patterns {
    use super::*;
    use monthly_activity::*;

    const MAY: i64 = 1_714_521_600; // 2024-05-01T00:00:00Z

    fn event(tenant: &str, i: i64, actor: &str) -> ActivityEvent {
        ActivityEvent {
            month: "2024-05".into(),
            occurred_at: DateTime::from_secs(MAY + i * 3_600),
            event_id: format!("e{i}"),
            actor_id: actor.into(),
            action: Action::Update,
            resource: format!("{tenant}/doc/{i}"),
            details: None,
            expires_at: DateTime::from_secs(4_102_444_800),
        }
    }

    #[tokio::test]
    async fn every_pattern_returns_only_the_tenants_items() {
        let repo =
            Repository::new(client().await).with_table_name(server::unique_table("Activity"));
        repo.create_table().await.unwrap();
        let (a, b) = (TenantId::new("t1").unwrap(), TenantId::new("t10").unwrap());
        let mut events = Vec::new();
        for tenant in [&a, &b] {
            let t = repo.for_tenant(tenant);
            for i in 0..6 {
                let actor = if i % 2 == 0 { "ann" } else { "bob" };
                let item = event(tenant.as_str(), i, actor);
                t.put_activity_event(&item).await.unwrap();
                if tenant == &a {
                    events.push(item);
                }
            }
            for (month, n) in [
                ("2024-03", 3),
                ("2024-04", 4),
                ("2024-05", 6),
                ("2024-06", 1),
            ] {
                // Counters the stream handler would have written.
                let count = MonthlyActivityCount {
                    month: month.into(),
                    event_count: n + i64::from(tenant == &b) * 100,
                };
                put_stored(repo.client(), repo.table_name(), &count, tenant).await;
            }
        }
        let t = repo.for_tenant(&a);
        let mut newest_first = events.clone();
        newest_first.reverse();
        assert_eq!(
            t.month_activity("2024-05").all().await.unwrap(),
            newest_first
        );
        assert!(t.month_activity("2024-04").all().await.unwrap().is_empty());
        assert_eq!(
            t.activity_between(
                "2024-05",
                DateTime::from_secs(MAY + 3_600),
                DateTime::from_secs(MAY + 3 * 3_600)
            )
            .all()
            .await
            .unwrap(),
            // `between` is inclusive on the sort-key text: an event at the upper
            // bound has a longer key (`<at>#<id>`) and falls after it.
            events[1..3].to_vec()
        );
        assert_eq!(
            t.activity_since("2024-05", DateTime::from_secs(MAY + 4 * 3_600))
                .all()
                .await
                .unwrap(),
            events[4..].to_vec()
        );
        let mut before: Vec<_> = events[..2].to_vec();
        before.reverse();
        assert_eq!(
            t.activity_before("2024-05", DateTime::from_secs(MAY + 2 * 3_600))
                .all()
                .await
                .unwrap(),
            before
        );
        let bob: Vec<_> = events
            .iter()
            .filter(|e| e.actor_id == "bob")
            .cloned()
            .collect();
        assert_eq!(t.actor_activity("bob", "2024-05").all().await.unwrap(), bob);
        let counts = t.monthly_counts("2024-04", "2024-05").all().await.unwrap();
        assert_eq!(
            counts,
            vec![
                MonthlyActivityCount {
                    month: "2024-04".into(),
                    event_count: 4
                },
                MonthlyActivityCount {
                    month: "2024-05".into(),
                    event_count: 6
                },
            ]
        );
    }
}

mod photo_site_patterns {
    use super::*;
    use photo_site::*;

    const T0: i64 = 1_714_564_800_000;

    fn photo(owner: &str, i: u8) -> Photo {
        Photo {
            photo_id: format!("01HZ{:0>22}", i),
            url: format!("https://img.example/{owner}/{i}.jpg"),
            caption: i.is_multiple_of(2).then(|| format!("photo {i} of {owner}")),
            image_format: ImageFormat::Jpeg,
            width: 4_000,
            height: 3_000,
            size_bytes: 2_000_000 + i64::from(i),
            tags: Some(vec![owner.to_owned()]),
            uploaded_at: DateTime::from_millis(T0 + i64::from(i) * 60_000),
        }
    }

    fn profile(owner: &str) -> UserProfile {
        UserProfile {
            display_name: format!("{owner}'s photos"),
            bio: None,
            avatar_url: Some(format!("https://img.example/{owner}/avatar.png")),
            created_at: DateTime::from_secs(1_700_000_000),
        }
    }

    #[tokio::test]
    async fn every_pattern_returns_only_the_users_items() {
        let repo = Repository::new(client().await).with_table_name(server::unique_table("Photos"));
        repo.create_table().await.unwrap();
        let (a, b) = (
            TenantId::new("ann").unwrap(),
            TenantId::new("ann_2").unwrap(),
        );
        let mut photos = Vec::new();
        for owner in [&a, &b] {
            let t = repo.for_tenant(owner);
            t.put_user_profile(&profile(owner.as_str())).await.unwrap();
            for i in 1..=5 {
                let item = photo(owner.as_str(), i);
                t.put_photo(&item).await.unwrap();
                if owner == &a {
                    photos.push(item);
                }
            }
        }
        let t = repo.for_tenant(&a);
        assert_eq!(
            t.user_profile(&UserProfileKey {}).await.unwrap(),
            Some(profile("ann"))
        );
        assert_eq!(
            t.photo(&photos[2].key()).await.unwrap(),
            Some(photos[2].clone())
        );
        assert_eq!(
            t.photos_between(
                DateTime::from_millis(T0 + 60_000),
                DateTime::from_millis(T0 + 3 * 60_000 + 1)
            )
            .all()
            .await
            .unwrap(),
            photos[..3].to_vec()
        );
        let mut newest_first = photos.clone();
        newest_first.reverse();
        assert_eq!(t.latest_photos().all().await.unwrap(), newest_first);
        assert_eq!(
            t.photos_since(DateTime::from_millis(T0 + 4 * 60_000))
                .all()
                .await
                .unwrap(),
            photos[3..].to_vec()
        );
        // `PHOTO#…` sorts before `PROFILE`.
        let mut contents: Vec<_> = photos
            .iter()
            .cloned()
            .map(AccountContentsItem::Photo)
            .collect();
        contents.push(AccountContentsItem::UserProfile(profile("ann")));
        assert_eq!(t.account_contents().all().await.unwrap(), contents);

        let mut delete = t.delete_account_items();
        delete.delete_user_profile(&UserProfileKey {});
        for p in &photos {
            delete.delete_photo(&p.key());
        }
        delete.send().await.unwrap();
        assert!(t.account_contents().all().await.unwrap().is_empty());
        assert_eq!(
            repo.for_tenant(&b)
                .account_contents()
                .all()
                .await
                .unwrap()
                .len(),
            6
        );
    }
}

mod project_task_comment_patterns {
    use super::*;
    use project_task_comment::*;

    // Comment ids are ULIDs.
    const C1: &str = "01HZ0000000000000000000001";
    const C2: &str = "01HZ0000000000000000000002";

    fn project(tenant: &str, id: &str, name: &str) -> Project {
        Project {
            project_id: id.into(),
            name: format!("{name} ({tenant})"),
            name_key: name.to_lowercase(),
            created_at: DateTime::from_secs(1_700_000_000),
        }
    }

    fn task(project: &str, id: &str, assignee: Option<&str>, due: Option<i64>) -> Task {
        Task {
            project_id: project.into(),
            task_id: id.into(),
            title: format!("{project}/{id}"),
            status: Status::Todo,
            assignee_id: assignee.map(str::to_owned),
            due_at: due.map(DateTime::from_secs),
            version: 0,
        }
    }

    fn comment(tenant: &str, project: &str, task: &str, id: &str) -> Comment {
        Comment {
            project_id: project.into(),
            task_id: task.into(),
            comment_id: id.into(),
            author_id: "ann".into(),
            body: format!("{tenant} says hi"),
            created_at: DateTime::from_secs(1_700_000_100),
        }
    }

    #[tokio::test]
    async fn every_pattern_returns_only_the_tenants_items() {
        let repo =
            Repository::new(client().await).with_table_name(server::unique_table("Projects"));
        repo.create_table().await.unwrap();
        let (a, b) = (
            TenantId::new("org-a").unwrap(),
            TenantId::new("org-b").unwrap(),
        );
        for tenant in [&a, &b] {
            let t = repo.for_tenant(tenant);
            let name = tenant.as_str();
            t.put_project(&project(name, "p1", "Zeta")).await.unwrap();
            t.put_project(&project(name, "p2", "Alpha")).await.unwrap();
            t.put_task(&task("p1", "t1", Some("ann"), Some(1_800_000_000)))
                .await
                .unwrap();
            t.put_task(&task("p1", "t2", Some("ann"), Some(1_900_000_000)))
                .await
                .unwrap();
            t.put_task(&task("p1", "t3", Some("ann"), None))
                .await
                .unwrap();
            t.put_task(&task("p2", "t1", None, Some(1_800_000_000)))
                .await
                .unwrap();
            for c in [C1, C2] {
                t.put_comment(&comment(name, "p1", "t1", c)).await.unwrap();
            }
        }
        let t = repo.for_tenant(&a);
        let c = |id| comment("org-a", "p1", "t1", id);
        assert_eq!(
            t.project_tree().all().await.unwrap(),
            vec![
                ProjectTreeItem::Project(project("org-a", "p1", "Zeta")),
                ProjectTreeItem::Task(task("p1", "t1", Some("ann"), Some(1_800_000_000))),
                ProjectTreeItem::Comment(c(C1)),
                ProjectTreeItem::Comment(c(C2)),
                ProjectTreeItem::Task(task("p1", "t2", Some("ann"), Some(1_900_000_000))),
                ProjectTreeItem::Task(task("p1", "t3", Some("ann"), None)),
                ProjectTreeItem::Project(project("org-a", "p2", "Alpha")),
                ProjectTreeItem::Task(task("p2", "t1", None, Some(1_800_000_000))),
            ]
        );
        // By name: Alpha before Zeta.
        assert_eq!(
            t.projects().all().await.unwrap(),
            vec![
                project("org-a", "p2", "Alpha"),
                project("org-a", "p1", "Zeta")
            ]
        );
        assert_eq!(
            t.project(&ProjectKey {
                project_id: "p1".into()
            })
            .await
            .unwrap(),
            Some(project("org-a", "p1", "Zeta"))
        );
        assert_eq!(t.project_tasks("p1").all().await.unwrap().len(), 5);
        assert_eq!(
            t.project_tasks("p2").all().await.unwrap(),
            vec![ProjectTasksItem::Task(task(
                "p2",
                "t1",
                None,
                Some(1_800_000_000)
            ))]
        );
        let key = TaskKey {
            project_id: "p1".into(),
            task_id: "t2".into(),
        };
        assert_eq!(
            t.task(&key).await.unwrap(),
            Some(task("p1", "t2", Some("ann"), Some(1_900_000_000)))
        );
        assert_eq!(
            t.task_comments("p1", "t1").all().await.unwrap(),
            vec![c(C1), c(C2)]
        );
        // GSI2 is sparse: only tasks with both an assignee and a due date.
        assert_eq!(
            t.my_tasks_due("ann", DateTime::from_secs(1_850_000_000))
                .all()
                .await
                .unwrap(),
            vec![task("p1", "t1", Some("ann"), Some(1_800_000_000))]
        );
        assert_eq!(
            t.my_tasks_due("ann", DateTime::from_secs(2_000_000_000))
                .all()
                .await
                .unwrap()
                .len(),
            2
        );

        // delete_task: the task and its comments, atomically.
        let mut delete = t.delete_task();
        delete.delete_task(&TaskKey {
            project_id: "p1".into(),
            task_id: "t1".into(),
        });
        for id in [C1, C2] {
            delete.delete_comment(&CommentKey {
                project_id: "p1".into(),
                task_id: "t1".into(),
                comment_id: id.into(),
            });
        }
        delete.send().await.unwrap();
        assert_eq!(t.project_tasks("p1").all().await.unwrap().len(), 2);
        assert_eq!(
            repo.for_tenant(&b)
                .project_tasks("p1")
                .all()
                .await
                .unwrap()
                .len(),
            5
        );
    }
}

mod saas_tenant_users_orders_patterns {
    use super::*;
    use saas_tenant_users_orders::*;

    fn user(tenant: &str, id: &str) -> User {
        User {
            user_id: id.into(),
            email: format!("{id}@{tenant}.example"),
            role: Role::Member,
            last_login: None,
        }
    }

    fn order(tenant: &str, id: &str, status: Status, at: i64) -> Order {
        let line: Item = [
            ("sku".to_owned(), AttributeValue::S("SKU-1".into())),
            ("tenant".to_owned(), AttributeValue::S(tenant.into())),
        ]
        .into_iter()
        .collect();
        Order {
            order_id: id.into(),
            user_id: "u1".into(),
            status,
            total: decimal("19.99"),
            currency: Currency::Eur,
            lines: vec![line],
            created_at: DateTime::from_secs(at),
        }
    }

    fn stock(sku: &str, on_hand: i64) -> InventoryItem {
        InventoryItem {
            sku: sku.into(),
            on_hand,
            reserved: 0,
            version: 0,
        }
    }

    #[tokio::test]
    async fn every_pattern_returns_only_the_tenants_items() {
        let repo = Repository::new(client().await).with_table_name(server::unique_table("SaaS"));
        repo.create_table().await.unwrap();
        let (a, b) = (
            TenantId::new("one").unwrap(),
            TenantId::new("one-1").unwrap(),
        );
        for tenant in [&a, &b] {
            let t = repo.for_tenant(tenant);
            let name = tenant.as_str();
            t.put_tenant(&Tenant {
                name: format!("tenant {name}"),
                plan: Plan::Pro,
                created_at: DateTime::from_secs(1_700_000_000),
            })
            .await
            .unwrap();
            for id in ["u1", "u2"] {
                t.put_user(&user(name, id)).await.unwrap();
            }
            t.put_order(&order(name, "o1", Status::Pending, 1_714_564_800))
                .await
                .unwrap();
            t.put_order(&order(name, "o2", Status::Shipped, 1_714_564_900))
                .await
                .unwrap();
            t.put_order(&order(name, "o3", Status::Pending, 1_714_565_000))
                .await
                .unwrap();
            t.put_inventory_item(&stock("SKU-1", 10)).await.unwrap();
            t.put_inventory_item(&stock("SKU-2", 5)).await.unwrap();
        }
        let t = repo.for_tenant(&a);
        let profile = t.tenant_profile().all().await.unwrap();
        assert_eq!(profile.len(), 1);
        assert_eq!(profile[0].name, "tenant one");
        assert_eq!(
            t.users().all().await.unwrap(),
            vec![user("one", "u1"), user("one", "u2")]
        );
        let orders = vec![
            order("one", "o1", Status::Pending, 1_714_564_800),
            order("one", "o2", Status::Shipped, 1_714_564_900),
            order("one", "o3", Status::Pending, 1_714_565_000),
        ];
        assert_eq!(t.orders().all().await.unwrap(), orders);
        let all = t.all_tenant_data().all().await.unwrap();
        assert_eq!(all.len(), 8);
        assert!(matches!(all[0], AllTenantDataItem::InventoryItem(_)));
        assert!(matches!(all[2], AllTenantDataItem::Order(_)));
        assert!(matches!(all[5], AllTenantDataItem::Tenant(_)));
        assert!(matches!(all[6], AllTenantDataItem::User(_)));
        assert_eq!(
            t.user_by_email("u2@one.example").all().await.unwrap(),
            vec![user("one", "u2")]
        );
        assert!(t
            .user_by_email("u2@one-1.example")
            .all()
            .await
            .unwrap()
            .is_empty());
        assert_eq!(
            t.pending_orders().all().await.unwrap(),
            vec![orders[0].clone(), orders[2].clone()]
        );
        assert_eq!(
            t.orders_by_status(Status::Pending, DateTime::from_secs(1_714_564_900))
                .all()
                .await
                .unwrap(),
            vec![orders[2].clone()]
        );

        // place_order: the order and the stock change, all or nothing.
        let mut place = t.place_order();
        place
            .create_order(&order("one", "o4", Status::Pending, 1_714_566_000))
            .update_inventory_item(
                &InventoryItemKey {
                    sku: "SKU-1".into(),
                },
                InventoryItemUpdate::default()
                    .on_hand(9)
                    .reserved(1)
                    .version(1),
            );
        place.send().await.unwrap();
        let mut again = t.place_order();
        again
            .create_order(&order("one", "o4", Status::Pending, 1_714_566_000))
            .update_inventory_item(
                &InventoryItemKey {
                    sku: "SKU-1".into(),
                },
                InventoryItemUpdate::default().on_hand(0).version(2),
            );
        assert_canceled(again.send().await);

        // inventory_items: a batch get, which sees the first transaction only.
        let mut get = t.inventory_items();
        for sku in ["SKU-1", "SKU-2", "SKU-404"] {
            get.get_inventory_item(&InventoryItemKey { sku: sku.into() });
        }
        let mut items = get.all().await.unwrap();
        items.sort_by(|x, y| x.sku.cmp(&y.sku));
        assert_eq!(
            items,
            vec![
                InventoryItem {
                    sku: "SKU-1".into(),
                    on_hand: 9,
                    reserved: 1,
                    version: 1
                },
                stock("SKU-2", 5)
            ]
        );
        let mut other = repo.for_tenant(&b).inventory_items();
        other.get_inventory_item(&InventoryItemKey {
            sku: "SKU-1".into(),
        });
        assert_eq!(other.all().await.unwrap(), vec![stock("SKU-1", 10)]);
    }
}

mod shopping_cart_patterns {
    use super::*;
    use shopping_cart::*;

    fn item(user: &str, product: &str, status: Status) -> CartItem {
        CartItem {
            user_id: user.into(),
            product_id: product.into(),
            status,
            product_name: format!("{product} for {user}"),
            quantity: 1,
            unit_price: decimal("9.50"),
            added_at: DateTime::from_secs(1_714_564_800),
        }
    }

    fn count(user: &str, status: Status, n: i64) -> CartCount {
        CartCount {
            user_id: user.into(),
            status,
            item_count: n,
        }
    }

    #[tokio::test]
    async fn every_pattern_returns_only_the_users_items() {
        let repo = Repository::new(client().await).with_table_name(server::unique_table("Cart"));
        repo.create_table().await.unwrap();
        for user in ["ann", "ann2"] {
            // The counters exist before the first transaction updates them.
            repo.put_cart_count(&count(user, Status::Active, 0))
                .await
                .unwrap();
            let mut add = repo.add_to_cart();
            add.put_cart_item(&item(user, "p1", Status::Active))
                .update_cart_count(
                    &CartCountKey {
                        user_id: user.into(),
                        status: Status::Active,
                    },
                    CartCountUpdate::default().item_count(1),
                );
            add.send().await.unwrap();
            repo.put_cart_item(&item(user, "p2", Status::Active))
                .await
                .unwrap();
            repo.put_cart_item(&item(user, "p3", Status::Saved))
                .await
                .unwrap();
            repo.put_cart_count(&count(user, Status::Active, 2))
                .await
                .unwrap();
            repo.put_cart_count(&count(user, Status::Saved, 1))
                .await
                .unwrap();
            repo.put_wishlist_item(&WishlistItem {
                user_id: user.into(),
                product_id: "p9".into(),
                product_name: "p9".into(),
                note: Some(format!("for {user}")),
                added_at: DateTime::from_secs(1_714_564_800),
            })
            .await
            .unwrap();
        }
        let active = vec![
            item("ann", "p1", Status::Active),
            item("ann", "p2", Status::Active),
        ];
        let saved = vec![item("ann", "p3", Status::Saved)];
        let whole: Vec<_> = active.iter().chain(&saved).cloned().collect();
        assert_eq!(repo.whole_cart("ann").all().await.unwrap(), whole);
        assert_eq!(repo.active_cart("ann").all().await.unwrap(), active);
        assert_eq!(repo.saved_for_later("ann").all().await.unwrap(), saved);
        assert_eq!(
            repo.cart_item(&active[1].key()).await.unwrap(),
            Some(active[1].clone())
        );
        let wishlist = repo.wishlist("ann").all().await.unwrap();
        assert_eq!(wishlist.len(), 1);
        assert_eq!(wishlist[0].note.as_deref(), Some("for ann"));
        assert_eq!(
            repo.cart_counts("ann").all().await.unwrap(),
            vec![
                count("ann", Status::Active, 2),
                count("ann", Status::Saved, 1)
            ]
        );

        // move_item: out of the active cart into saved-for-later.
        let mut mv = repo.move_item();
        mv.delete_cart_item(&active[0].key())
            .put_cart_item(&item("ann", "p1", Status::Saved))
            .update_cart_count(
                &CartCountKey {
                    user_id: "ann".into(),
                    status: Status::Active,
                },
                CartCountUpdate::default().item_count(1),
            )
            .update_cart_count(
                &CartCountKey {
                    user_id: "ann".into(),
                    status: Status::Saved,
                },
                CartCountUpdate::default().item_count(2),
            );
        mv.send().await.unwrap();
        assert_eq!(
            repo.active_cart("ann").all().await.unwrap(),
            vec![active[1].clone()]
        );
        assert_eq!(repo.saved_for_later("ann").all().await.unwrap().len(), 2);

        // checkout: the active cart goes, its count drops to zero.
        let mut checkout = repo.checkout();
        checkout
            .delete_cart_item(&active[1].key())
            .update_cart_count(
                &CartCountKey {
                    user_id: "ann".into(),
                    status: Status::Active,
                },
                CartCountUpdate::default().item_count(0),
            );
        checkout.send().await.unwrap();
        assert!(repo.active_cart("ann").all().await.unwrap().is_empty());
        assert_eq!(
            repo.cart_counts("ann").all().await.unwrap(),
            vec![
                count("ann", Status::Active, 0),
                count("ann", Status::Saved, 2)
            ]
        );
        // The other user's cart is untouched.
        assert_eq!(repo.whole_cart("ann2").all().await.unwrap().len(), 3);
    }
}

mod vertical_partitioning_patterns {
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
            t.document_meta(&DocumentMetaKey {
                document_id: "d1".into()
            })
            .await
            .unwrap(),
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
}

mod optimistic_locking {
    use super::*;
    use saas_tenant_users_orders::*;

    /// `or_create()` on a versioned entity: the update creates the item
    /// when there is none (as a versioned put does), and otherwise applies
    /// only to the version read.
    #[tokio::test]
    async fn versioned_upserts_create_then_lock() {
        let repo = Repository::new(client().await).with_table_name(server::unique_table("Upserts"));
        repo.create_table().await.unwrap();
        let tenant = TenantId::new("upserts").unwrap();
        let t = repo.for_tenant(&tenant);
        let key = InventoryItemKey {
            sku: "SKU-9".into(),
        };
        let first = InventoryItemUpdate::default()
            .on_hand(10)
            .reserved(0)
            .version(1)
            .or_create();
        t.update_inventory_item(&key, first.clone()).await.unwrap();
        let created = t.get_inventory_item(&key).await.unwrap().unwrap();
        assert_eq!((created.on_hand, created.version), (10, 1));
        // The same write again is stale: the item is at version 1 now.
        let stale = t.update_inventory_item(&key, first).await;
        assert!(
            matches!(stale, Err(Error::VersionConflict { expected: 0, .. })),
            "{stale:?}"
        );
        // `or_create()` may create the item, so it carries every required
        // attribute, as a put does; without one nothing is sent.
        let partial = InventoryItemUpdate::default()
            .on_hand(7)
            .version(2)
            .or_create();
        let refused = t.update_inventory_item(&key, partial).await;
        assert!(
            matches!(&refused, Err(Error::Value(v)) if v.name == "reserved"),
            "{refused:?}"
        );
        let next = InventoryItemUpdate::default()
            .on_hand(7)
            .reserved(0)
            .version(2)
            .or_create();
        t.update_inventory_item(&key, next).await.unwrap();
        let updated = t.get_inventory_item(&key).await.unwrap().unwrap();
        assert_eq!((updated.on_hand, updated.version), (7, 2));
    }

    #[tokio::test]
    async fn versioned_writes_conflict_instead_of_overwriting() {
        let repo = Repository::new(client().await).with_table_name(server::unique_table("Locks"));
        repo.create_table().await.unwrap();
        let tenant = TenantId::new("locks").unwrap();
        let t = repo.for_tenant(&tenant);
        let key = InventoryItemKey {
            sku: "SKU-1".into(),
        };
        let item = InventoryItem {
            sku: "SKU-1".into(),
            on_hand: 100,
            reserved: 0,
            version: 0,
        };
        t.put_inventory_item(&item).await.unwrap();
        // A second writer that read nothing and writes version 0 again loses.
        let stale = t.put_inventory_item(&item).await;
        assert!(
            matches!(stale, Err(Error::VersionConflict { expected: -1, .. })),
            "{stale:?}"
        );
        // Version 1 after version 0: applies.
        t.put_inventory_item(&InventoryItem {
            on_hand: 99,
            version: 1,
            ..item.clone()
        })
        .await
        .unwrap();
        let lost = t
            .update_inventory_item(&key, InventoryItemUpdate::default().on_hand(5).version(1))
            .await;
        assert!(
            matches!(lost, Err(Error::VersionConflict { expected: 0, .. })),
            "{lost:?}"
        );
        assert_eq!(
            t.get_inventory_item(&key).await.unwrap().unwrap().on_hand,
            99
        );

        // Eight writers take 5 units each, one at a time, re-reading on
        // every conflict: none of the 40 decrements is lost.
        let writers = (0..8).map(|_| {
            let repo = repo.clone();
            let tenant = tenant.clone();
            let key = key.clone();
            tokio::spawn(async move {
                let t = repo.for_tenant(&tenant);
                let mut conflicts = 0u32;
                for _ in 0..5 {
                    loop {
                        let current = t.get_inventory_item(&key).await.unwrap().unwrap();
                        let update = InventoryItemUpdate::default()
                            .on_hand(current.on_hand - 1)
                            .version(current.version + 1);
                        match t.update_inventory_item(&key, update).await {
                            Ok(_) => break,
                            Err(Error::VersionConflict { .. }) => conflicts += 1,
                            Err(e) => panic!("{e:?}"),
                        }
                    }
                }
                conflicts
            })
        });
        let mut conflicts = 0;
        for writer in writers.collect::<Vec<_>>() {
            conflicts += writer.await.unwrap();
        }
        let last = t.get_inventory_item(&key).await.unwrap().unwrap();
        assert_eq!(last.on_hand, 99 - 40, "after {conflicts} conflicts");
        assert_eq!(last.version, 41);
        // An update that does not say its version is refused before any request.
        let refused = t
            .update_inventory_item(&key, InventoryItemUpdate::default().on_hand(1))
            .await;
        assert!(matches!(refused, Err(Error::Value(_))), "{refused:?}");
    }
}

mod transactions {
    use super::*;

    #[tokio::test]
    async fn a_failed_condition_names_its_item_and_writes_nothing() {
        use inverted_role_index::*;
        let repo = Repository::new(client().await).with_table_name(server::unique_table("Tx"));
        repo.create_table().await.unwrap();
        let tenant = TenantId::new("tx").unwrap();
        let t = repo.for_tenant(&tenant);
        t.put_user(&User {
            user_id: "u1".into(),
            email: "u1@tx.example".into(),
            display_name: "u1".into(),
        })
        .await
        .unwrap();
        let mut grant = t.grant_role();
        grant
            .create_role_assignment(&RoleAssignment {
                user_id: "u1".into(),
                role: "ghost".into(),
                granted_by: "root".into(),
                granted_at: DateTime::from_secs(1_714_564_800),
            })
            .check_user(&UserKey {
                user_id: "u1".into(),
            })
            .check_role(&RoleKey {
                role: "ghost".into(),
            });
        let err = grant.send().await.unwrap_err();
        let Error::TransactionCanceled(reasons) = &err else {
            panic!("{err:?}");
        };
        assert_eq!(reasons.len(), 1, "{reasons:?}");
        assert_eq!(reasons[0].index, 2);
        assert_eq!(reasons[0].item, "check_role");
        assert_eq!(reasons[0].code, "ConditionalCheckFailed");
        assert!(err.to_string().contains("check_role"), "{err}");
        // Nothing of the transaction was written.
        assert!(t.user_roles("u1").all().await.unwrap().is_empty());
    }

    #[tokio::test]
    async fn more_items_than_allowed_are_refused_before_any_request() {
        use support_ticket::*;
        let repo = Repository::new(client().await).with_table_name(server::unique_table("Tx101"));
        repo.create_table().await.unwrap();
        let tenant = TenantId::new("tx").unwrap();
        let t = repo.for_tenant(&tenant);
        for i in 0..101 {
            t.put_ticket(&Ticket {
                id: format!("T{i}"),
                title: "open".into(),
                status: Status::Open,
                resolver: None,
                created_at: DateTime::from_secs(1_714_564_800),
            })
            .await
            .unwrap();
        }
        let mut close = t.close_tickets();
        for i in 0..101 {
            close.update_ticket(
                &TicketKey {
                    id: format!("T{i}"),
                },
                TicketUpdate::default().status(Status::Closed),
            );
        }
        assert_eq!(close.len(), 101);
        let refused = close.send().await;
        assert!(
            matches!(
                refused,
                Err(Error::TooManyItems {
                    items: 101,
                    max: 100,
                    ..
                })
            ),
            "{refused:?}"
        );
        let still_open = t.get_ticket(&TicketKey { id: "T0".into() }).await.unwrap();
        assert_eq!(still_open.map(|x| x.status), Some(Status::Open));

        // 100 go through, atomically, with an idempotency token.
        let mut close = t.close_tickets();
        for i in 0..100 {
            close.update_ticket(
                &TicketKey {
                    id: format!("T{i}"),
                },
                TicketUpdate::default().status(Status::Closed),
            );
        }
        close.client_request_token("close-100");
        close.send().await.unwrap();
        let closed = t.get_ticket(&TicketKey { id: "T99".into() }).await.unwrap();
        assert_eq!(closed.map(|x| x.status), Some(Status::Closed));
    }
}

mod transact_get {
    use super::*;

    #[tokio::test]
    async fn items_of_several_entities_are_read_together_per_tenant() {
        use support_ticket::*;
        let repo = Repository::new(client().await).with_table_name(server::unique_table("TxGet"));
        repo.create_table().await.unwrap();
        let (a, b) = (TenantId::new("t1").unwrap(), TenantId::new("t10").unwrap());
        let ticket = |title: &str| Ticket {
            id: "T1".into(),
            title: title.into(),
            status: Status::Open,
            resolver: None,
            created_at: DateTime::from_secs(1_714_564_800),
        };
        let count = TicketCount {
            status: Status::Open,
            count: 3,
        };
        repo.for_tenant(&a)
            .put_ticket(&ticket("of t1"))
            .await
            .unwrap();
        put_stored(repo.client(), repo.table_name(), &count, &a).await;
        repo.for_tenant(&b)
            .put_ticket(&ticket("of t10"))
            .await
            .unwrap();

        let t = repo.for_tenant(&a);
        let mut read = t.transact_get();
        let first = read.get(&TicketKey { id: "T1".into() });
        let missing = read.get(&TicketKey { id: "T9".into() });
        let counted = read.get(&TicketCountKey {
            status: Status::Open,
        });
        assert_eq!(read.len(), 3);
        let got = read.send().await.unwrap();
        assert_eq!(got.get(first).unwrap(), Some(ticket("of t1")));
        assert_eq!(got.get(missing).unwrap(), None);
        assert_eq!(got.get(counted).unwrap(), Some(count));

        // Over 100 items: refused before any request.
        let mut too_many = t.transact_get();
        for i in 0..101 {
            too_many.get(&TicketKey {
                id: format!("T{i}"),
            });
        }
        assert!(matches!(
            too_many.send().await,
            Err(Error::TooManyItems { items: 101, .. })
        ));
    }
}
