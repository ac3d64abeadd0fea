//! For every spec, one run of everything its repository can do — every
//! access pattern and every entity's get/put/update/delete — through a
//! recording client, so the IAM matrix is built from the requests the
//! generated code really makes. Requests fail after being recorded; the
//! results are ignored.

use std::sync::Arc;

use singletable_runtime::DateTime;
use singletable_tests::capture::Recorder;
use singletable_tests::generated::*;

const AT: i64 = 1_714_564_800;

fn at() -> DateTime {
    DateTime::from_secs(AT)
}

/// The ticket the support-ticket scenarios write.
fn open_ticket() -> support_ticket::Ticket {
    support_ticket::Ticket {
        id: "T1".into(),
        title: "t".into(),
        status: support_ticket::Status::Open,
        resolver: Some("bob".into()),
        created_at: at(),
    }
}

/// The event the monthly-activity scenarios write.
fn activity_event() -> monthly_activity::ActivityEvent {
    monthly_activity::ActivityEvent {
        month: "2024-05".into(),
        occurred_at: at(),
        event_id: "e1".into(),
        actor_id: "a1".into(),
        action: monthly_activity::Action::Create,
        resource: "r".into(),
        details: None,
        expires_at: at(),
    }
}

/// Runs `$call` with requests labelled `$label`, recording how it ended.
macro_rules! step {
    ($rec:expr, $label:literal, $call:expr) => {{
        $rec.label($label);
        let result = $call;
        $rec.outcome(&result);
    }};
}

pub async fn support_ticket(rec: &Arc<Recorder>, tenant: Option<&str>) {
    use support_ticket::*;
    let repo = Repository::new(rec.client("pk"));
    let id = TenantId::new(tenant.unwrap_or_default()).expect("a valid tenant id");
    let t = repo.for_tenant(&id);
    let key = TicketKey { id: "T1".into() };
    let ticket = open_ticket();
    let comment = CommentKey {
        ticket_id: "T1".into(),
        created_at: at(),
        id: "C1".into(),
    };
    let count = TicketCountKey {
        status: Status::Open,
    };
    step!(rec, "entity", t.get_ticket(&key).await);
    step!(rec, "entity", t.put_ticket(&ticket).await);
    step!(rec, "entity", t.create_ticket(&ticket).await);
    step!(
        rec,
        "entity",
        t.update_ticket(&key, TicketUpdate::default()).await
    );
    step!(rec, "entity", t.delete_ticket(&key).await);
    step!(rec, "entity", t.get_comment(&comment).await);
    step!(rec, "entity", t.delete_comment(&comment).await);
    step!(rec, "entity", t.get_ticket_count(&count).await);
    step!(
        rec,
        "ticket_with_comments",
        t.ticket_with_comments("T1").all().await
    );
    step!(rec, "ticket_summary", t.ticket_summary("T1").all().await);
    step!(rec, "open_tickets", t.open_tickets().all().await);
    step!(
        rec,
        "open_tickets_for_resolver",
        t.open_tickets_for_resolver("bob").all().await
    );
    let mut close = t.close_tickets();
    close.update_ticket(&key, TicketUpdate::default().status(Status::Closed));
    step!(rec, "close_tickets", close.send().await);
    step!(
        rec,
        "ticket_counts_by_status",
        t.ticket_counts_by_status().all().await
    );
}

pub async fn inverted_role_index(rec: &Arc<Recorder>, tenant: Option<&str>) {
    use inverted_role_index::*;
    let repo = Repository::new(rec.client("pk"));
    let id = TenantId::new(tenant.unwrap_or_default()).expect("a valid tenant id");
    let t = repo.for_tenant(&id);
    let user = UserKey {
        user_id: "u1".into(),
    };
    let role = RoleKey {
        role: "admin".into(),
    };
    let assignment = RoleAssignment {
        user_id: "u1".into(),
        role: "admin".into(),
        granted_by: "u2".into(),
        granted_at: at(),
    };
    step!(rec, "entity", t.delete_user(&user).await);
    step!(
        rec,
        "entity",
        t.update_user(&user, UserUpdate::default()).await
    );
    step!(rec, "entity", t.get_role(&role).await);
    step!(rec, "entity", t.put_role_assignment(&assignment).await);
    step!(rec, "user", t.user(&user.user_id).await);
    step!(rec, "user_roles", t.user_roles("u1").all().await);
    step!(rec, "user_with_roles", t.user_with_roles("u1").all().await);
    step!(rec, "role_members", t.role_members("admin").all().await);
    step!(rec, "admins", t.admins().all().await);
    step!(
        rec,
        "role_with_members",
        t.role_with_members("admin").all().await
    );
    let mut grant = t.grant_role();
    grant
        .create_role_assignment(&assignment)
        .check_user(&user)
        .check_role(&role);
    step!(rec, "grant_role", grant.send().await);
    let mut revoke = t.revoke_roles();
    revoke.delete_role_assignment(&assignment.key());
    step!(rec, "revoke_roles", revoke.send().await);
}

pub async fn monthly_activity(rec: &Arc<Recorder>, tenant: Option<&str>) {
    use monthly_activity::*;
    let repo = Repository::new(rec.client("pk"));
    let id = TenantId::new(tenant.unwrap_or_default()).expect("a valid tenant id");
    let t = repo.for_tenant(&id);
    let event = activity_event();
    let count = MonthlyActivityCountKey {
        month: "2024-05".into(),
    };
    step!(rec, "entity", t.put_activity_event(&event).await);
    step!(
        rec,
        "entity",
        t.update_activity_event(&event.key(), ActivityEventUpdate::default().resource("r2"))
            .await
    );
    step!(rec, "entity", t.delete_activity_event(&event.key()).await);
    step!(rec, "entity", t.get_monthly_activity_count(&count).await);
    step!(
        rec,
        "month_activity",
        t.month_activity("2024-05").all().await
    );
    step!(
        rec,
        "activity_between",
        t.activity_between("2024-05", at(), at()).all().await
    );
    step!(
        rec,
        "activity_since",
        t.activity_since("2024-05", at()).all().await
    );
    step!(
        rec,
        "activity_before",
        t.activity_before("2024-05", at()).all().await
    );
    step!(
        rec,
        "actor_activity",
        t.actor_activity("a1", "2024-05").all().await
    );
    step!(
        rec,
        "monthly_counts",
        t.monthly_counts("2024-01", "2024-05").all().await
    );
}

pub async fn photo_site(rec: &Arc<Recorder>, tenant: Option<&str>) {
    use photo_site::*;
    let repo = Repository::new(rec.client("pk"));
    let id = TenantId::new(tenant.unwrap_or_default()).expect("a valid tenant id");
    let t = repo.for_tenant(&id);
    let photo = Photo {
        photo_id: "01HZZZZZZZZZZZZZZZZZZZZZZ1".into(),
        url: "https://example.invalid/p".into(),
        caption: None,
        image_format: ImageFormat::Jpeg,
        width: 1,
        height: 1,
        size_bytes: 1,
        tags: None,
        uploaded_at: at(),
    };
    step!(rec, "entity", t.get_photo(&photo.key()).await);
    step!(rec, "entity", t.put_photo(&photo).await);
    step!(
        rec,
        "entity",
        t.update_photo(&photo.key(), PhotoUpdate::default()).await
    );
    step!(
        rec,
        "entity",
        t.delete_user_profile(&UserProfileKey {}).await
    );
    step!(rec, "user_profile", t.user_profile().await);
    step!(rec, "photo", t.photo(&photo.photo_id).await);
    step!(
        rec,
        "photos_between",
        t.photos_between(at(), at()).all().await
    );
    step!(rec, "latest_photos", t.latest_photos().all().await);
    step!(rec, "photos_since", t.photos_since(at()).all().await);
    step!(rec, "account_contents", t.account_contents().all().await);
    let mut delete = t.delete_account_items();
    delete
        .delete_user_profile(&UserProfileKey {})
        .delete_photo(&photo.key());
    step!(rec, "delete_account_items", delete.send().await);
}

pub async fn pooled_product_catalog(rec: &Arc<Recorder>, tenant: Option<&str>) {
    use pooled_product_catalog::*;
    let repo = Repository::new(rec.client("ShardID"));
    let id = TenantId::new(tenant.unwrap_or_default()).expect("a valid tenant id");
    let t = repo.for_tenant(&id);
    let product = Product {
        product_id: "p1".into(),
        name: "n".into(),
        category: "tools".into(),
        price: "9.99".parse().expect("a decimal"),
        currency: Currency::Eur,
        doc: Default::default(),
        updated_at: at(),
    };
    step!(rec, "entity", t.put_product(&product).await);
    step!(
        rec,
        "entity",
        t.update_product(&product.key(), ProductUpdate::default())
            .await
    );
    step!(rec, "entity", t.delete_product(&product.key()).await);
    step!(rec, "product", t.product(&product.product_id).await);
    step!(rec, "tenant_products", t.tenant_products().all().await);
    step!(
        rec,
        "products_in_category",
        t.products_in_category("tools").all().await
    );
    let mut import = t.import_products();
    import.put_product(&product);
    step!(rec, "import_products", import.send().await);
    let mut delete = t.delete_products();
    delete.delete_product(&product.key());
    step!(rec, "delete_products", delete.send().await);
}

pub async fn project_task_comment(rec: &Arc<Recorder>, tenant: Option<&str>) {
    use project_task_comment::*;
    let repo = Repository::new(rec.client("pk"));
    let id = TenantId::new(tenant.unwrap_or_default()).expect("a valid tenant id");
    let t = repo.for_tenant(&id);
    let project = Project {
        project_id: "p1".into(),
        name: "n".into(),
        name_key: "n".into(),
        created_at: at(),
    };
    let task = TaskKey {
        project_id: "p1".into(),
        task_id: "t1".into(),
    };
    let comment = CommentKey {
        project_id: "p1".into(),
        task_id: "t1".into(),
        comment_id: "01HZZZZZZZZZZZZZZZZZZZZZZ1".into(),
    };
    step!(rec, "entity", t.put_project(&project).await);
    step!(
        rec,
        "entity",
        t.update_task(&task, TaskUpdate::default().version(1)).await
    );
    step!(rec, "entity", t.delete_comment(&comment).await);
    step!(rec, "entity", t.get_comment(&comment).await);
    step!(rec, "project_tree", t.project_tree().all().await);
    step!(rec, "projects", t.projects().all().await);
    step!(rec, "project", t.project(&project.project_id).await);
    step!(rec, "project_tasks", t.project_tasks("p1").all().await);
    step!(rec, "task", t.task(&task.project_id, &task.task_id).await);
    step!(
        rec,
        "task_comments",
        t.task_comments("p1", "t1").all().await
    );
    step!(rec, "my_tasks_due", t.my_tasks_due("u1", at()).all().await);
    let mut delete = t.delete_task();
    delete.delete_task(&task).delete_comment(&comment);
    step!(rec, "delete_task", delete.send().await);
}

pub async fn saas_tenant_users_orders(rec: &Arc<Recorder>, tenant: Option<&str>) {
    use saas_tenant_users_orders::*;
    let repo = Repository::new(rec.client("pk"));
    let id = TenantId::new(tenant.unwrap_or_default()).expect("a valid tenant id");
    let t = repo.for_tenant(&id);
    let order = Order {
        order_id: "o1".into(),
        user_id: "u1".into(),
        status: Status::Pending,
        total: "1.00".parse().expect("a decimal"),
        currency: Currency::Usd,
        lines: vec![Default::default()],
        created_at: at(),
    };
    let sku = InventoryItemKey {
        sku: "SKU-1".into(),
    };
    step!(
        rec,
        "entity",
        t.get_user(&UserKey {
            user_id: "u1".into()
        })
        .await
    );
    step!(rec, "entity", t.put_order(&order).await);
    step!(
        rec,
        "entity",
        t.update_tenant(&TenantKey {}, TenantUpdate::default())
            .await
    );
    step!(rec, "entity", t.delete_inventory_item(&sku).await);
    step!(rec, "tenant_profile", t.tenant_profile().all().await);
    step!(rec, "users", t.users().all().await);
    step!(rec, "orders", t.orders().all().await);
    step!(rec, "all_tenant_data", t.all_tenant_data().all().await);
    step!(
        rec,
        "user_by_email",
        t.user_by_email("a@example.invalid").all().await
    );
    step!(rec, "pending_orders", t.pending_orders().all().await);
    step!(
        rec,
        "orders_by_status",
        t.orders_by_status(Status::Shipped, at()).all().await
    );
    let mut place = t.place_order();
    place
        .create_order(&order)
        .update_inventory_item(&sku, InventoryItemUpdate::default().version(1));
    step!(rec, "place_order", place.send().await);
    let mut items = t.inventory_items();
    items.get_inventory_item(&sku);
    step!(rec, "inventory_items", items.send().await);
}

pub async fn vertical_partitioning(rec: &Arc<Recorder>, tenant: Option<&str>) {
    use vertical_partitioning::*;
    let repo = Repository::new(rec.client("pk"));
    let id = TenantId::new(tenant.unwrap_or_default()).expect("a valid tenant id");
    let t = repo.for_tenant(&id);
    let meta = DocumentMetaKey {
        document_id: "d1".into(),
    };
    let chunk = DocumentBodyChunk {
        document_id: "d1".into(),
        chunk: 1,
        text: "x".into(),
    };
    step!(rec, "entity", t.put_document_body_chunk(&chunk).await);
    step!(
        rec,
        "entity",
        t.update_document_meta(&meta, DocumentMetaUpdate::default().version(1))
            .await
    );
    step!(
        rec,
        "entity",
        t.delete_document_share(&DocumentShareKey {
            document_id: "d1".into(),
            principal_id: "p1".into()
        })
        .await
    );
    step!(
        rec,
        "entity",
        t.get_document_attachment(&DocumentAttachmentKey {
            document_id: "d1".into(),
            attachment_id: "a1".into()
        })
        .await
    );
    step!(rec, "whole_document", t.whole_document("d1").all().await);
    step!(
        rec,
        "document_meta",
        t.document_meta(&meta.document_id).await
    );
    step!(rec, "document_body", t.document_body("d1").all().await);
    step!(
        rec,
        "body_chunks_between",
        t.body_chunks_between("d1", 0, 9).all().await
    );
    step!(rec, "attachments", t.attachments("d1").all().await);
    step!(rec, "shares", t.shares("d1").all().await);
    step!(rec, "recent_documents", t.recent_documents().all().await);
    let mut edit = t.edit_body();
    edit.put_document_body_chunk(&chunk)
        .update_document_meta(&meta, DocumentMetaUpdate::default().version(1));
    step!(rec, "edit_body", edit.send().await);
    let mut metas = t.document_metas();
    metas.get_document_meta(&meta);
    step!(rec, "document_metas", metas.send().await);
}

pub async fn work_queue(rec: &Arc<Recorder>, tenant: Option<&str>) {
    use work_queue::*;
    let repo = Repository::new(rec.client("pk"));
    let id = TenantId::new(tenant.unwrap_or_default()).expect("a valid tenant id");
    let t = repo.for_tenant(&id);
    let task = Task::new("t1", "x", Status::Open, 3, at()).with_assignee("ann");
    step!(rec, "entity", t.put_task(&task).await);
    step!(
        rec,
        "entity",
        t.update_task(&task.key(), TaskUpdate::default().status(Status::Done))
            .await
    );
    step!(rec, "entity", t.delete_task(&task.key()).await);
    let note = Note {
        task_id: "t1".into(),
        created_at: at(),
        text: "x".into(),
    };
    step!(rec, "entity", t.put_note(&note).await);
    step!(rec, "entity", t.get_note(&note.key()).await);
    step!(rec, "task", t.task("t1").await);
    step!(rec, "task_with_notes", t.task_with_notes("t1").all().await);
    step!(
        rec,
        "tasks_in_status",
        t.tasks_in_status(Status::Open).all().await
    );
    step!(
        rec,
        "tasks_at_priority_due_before",
        t.tasks_at_priority_due_before(Status::Open, 3, at())
            .all()
            .await
    );
    step!(
        rec,
        "tasks_at_least_as_urgent",
        t.tasks_at_least_as_urgent(Status::Open, 5).all().await
    );
    step!(
        rec,
        "assigned_tasks_due_between",
        t.assigned_tasks_due_between("ann", at(), at()).all().await
    );
    step!(rec, "tasks_to_review", t.tasks_to_review("rae").all().await);
}

pub async fn contest_votes(rec: &Arc<Recorder>, _tenant: Option<&str>) {
    use contest_votes::*;
    let repo = Repository::new(rec.client("pk"));
    let total = VoteTotal {
        contest_id: "c1".into(),
        contestant_id: "x".into(),
        votes: 1,
        tallied_at: at(),
    };
    let contestant = ContestantKey {
        contest_id: "c1".into(),
        contestant_id: "x".into(),
    };
    step!(rec, "entity", repo.get_contestant(&contestant).await);
    step!(rec, "entity", repo.put_vote_total(&total).await);
    step!(
        rec,
        "entity",
        repo.update_contestant(&contestant, ContestantUpdate::default())
            .await
    );
    step!(rec, "entity", repo.delete_contestant(&contestant).await);
    step!(rec, "contestants", repo.contestants("c1").all().await);
    step!(rec, "vote_shards", repo.vote_shards("c1", "x").all().await);
    step!(
        rec,
        "vote_total",
        repo.vote_total(&total.contest_id, &total.contestant_id)
            .await
    );
    step!(rec, "leaderboard", repo.leaderboard("c1").all().await);
    let mut publish = repo.publish_totals();
    publish.put_vote_total(&total);
    step!(rec, "publish_totals", publish.send().await);
}

pub async fn iot_device_reports(rec: &Arc<Recorder>, _tenant: Option<&str>) {
    use iot_device_reports::*;
    let repo = Repository::new(rec.client("pk"));
    let device = Device {
        device_id: "DEV-1".into(),
        model: "m".into(),
        site: "s".into(),
        installed_at: at(),
    };
    step!(rec, "entity", repo.put_device(&device).await);
    step!(
        rec,
        "entity",
        repo.update_device(&device.key(), DeviceUpdate::default())
            .await
    );
    step!(rec, "entity", repo.delete_device(&device.key()).await);
    step!(rec, "device", repo.device(&device.device_id).await);
    step!(
        rec,
        "device_reports_between",
        repo.device_reports_between("DEV-1", at(), at()).all().await
    );
    step!(
        rec,
        "latest_device_reports",
        repo.latest_device_reports("DEV-1").all().await
    );
    step!(
        rec,
        "escalations_for_technician",
        repo.escalations_for_technician("tech").all().await
    );
    step!(
        rec,
        "recent_escalations_for_technician",
        repo.recent_escalations_for_technician("tech", at())
            .all()
            .await
    );
}

pub async fn shopping_cart(rec: &Arc<Recorder>, _tenant: Option<&str>) {
    use shopping_cart::*;
    let repo = Repository::new(rec.client("pk"));
    let item = CartItem {
        user_id: "u1".into(),
        product_id: "p1".into(),
        status: Status::Active,
        product_name: "n".into(),
        quantity: 1,
        unit_price: "1.00".parse().expect("a decimal"),
        added_at: at(),
    };
    let count = CartCountKey {
        user_id: "u1".into(),
        status: Status::Active,
    };
    step!(rec, "entity", repo.put_cart_item(&item).await);
    step!(rec, "entity", repo.delete_cart_item(&item.key()).await);
    step!(
        rec,
        "entity",
        repo.update_cart_count(&count, CartCountUpdate::default())
            .await
    );
    step!(rec, "whole_cart", repo.whole_cart("u1").all().await);
    step!(rec, "active_cart", repo.active_cart("u1").all().await);
    step!(
        rec,
        "saved_for_later",
        repo.saved_for_later("u1").all().await
    );
    step!(
        rec,
        "cart_item",
        repo.cart_item(&item.user_id, item.status, &item.product_id)
            .await
    );
    step!(rec, "wishlist", repo.wishlist("u1").all().await);
    step!(rec, "cart_counts", repo.cart_counts("u1").all().await);
    let mut add = repo.add_to_cart();
    add.put_cart_item(&item)
        .update_cart_count(&count, CartCountUpdate::default());
    step!(rec, "add_to_cart", add.send().await);
    let mut moved = repo.move_item();
    moved
        .delete_cart_item(&item.key())
        .put_cart_item(&item)
        .update_cart_count(&count, CartCountUpdate::default());
    step!(rec, "move_item", moved.send().await);
    let mut checkout = repo.checkout();
    checkout
        .delete_cart_item(&item.key())
        .update_cart_count(&count, CartCountUpdate::default());
    step!(rec, "checkout", checkout.send().await);
}

pub async fn short_lived_messages(rec: &Arc<Recorder>, _tenant: Option<&str>) {
    use short_lived_messages::*;
    let repo = Repository::new(rec.client("pk"));
    let message = Message {
        recipient_id: "u1".into(),
        sender_id: "u2".into(),
        message_id: "01HZZZZZZZZZZZZZZZZZZZZZZ1".into(),
        body: "b".into(),
        sent_at: at(),
        is_read: false,
        expires_at: at(),
    };
    step!(rec, "entity", repo.put_message(&message).await);
    step!(
        rec,
        "entity",
        repo.update_message(&message.key(), MessageUpdate::default())
            .await
    );
    step!(rec, "entity", repo.delete_message(&message.key()).await);
    step!(rec, "inbox", repo.inbox("u1").all().await);
    step!(rec, "inbox_since", repo.inbox_since("u1", at()).all().await);
    step!(
        rec,
        "message",
        repo.message(&message.recipient_id, message.sent_at, &message.message_id)
            .await
    );
    step!(rec, "sent_messages", repo.sent_messages("u1").all().await);
    let mut open = repo.open_messages();
    open.get_message(&message.key()).include_expired();
    step!(rec, "open_messages", open.all().await);
    let mut delete = repo.delete_messages();
    delete.delete_message(&message.key());
    step!(rec, "delete_messages", delete.send().await);
}

/// What the stream handler sends for one tenant: the counter changes of a
/// ticket created, then closed.
pub async fn support_ticket_stream(rec: &Arc<Recorder>, tenant: &str) {
    use singletable_runtime::aggregate::ChangeRecord;
    use singletable_runtime::Entity;
    use support_ticket::*;
    let repo = Repository::new(rec.client("pk"));
    let id = TenantId::new(tenant).expect("a valid tenant id");
    let open = open_ticket();
    let closed = Ticket {
        status: Status::Closed,
        ..open.clone()
    };
    let image = |t: &Ticket| Some(t.to_item(&id).expect("the ticket encodes"));
    let records = [
        ChangeRecord {
            new: image(&open),
            ..ChangeRecord::default()
        },
        ChangeRecord {
            old: image(&open),
            new: image(&closed),
            ..ChangeRecord::default()
        },
    ];
    let (changes, errors) = ticket_count_changes(&records);
    assert!(errors.is_empty() && !changes.is_empty());
    step!(rec, "stream", repo.apply_counter_changes(&changes).await);
}

/// What the stream handler sends for one tenant: the count of an event.
pub async fn monthly_activity_stream(rec: &Arc<Recorder>, tenant: &str) {
    use monthly_activity::*;
    use singletable_runtime::aggregate::ChangeRecord;
    use singletable_runtime::Entity;
    let repo = Repository::new(rec.client("pk"));
    let id = TenantId::new(tenant).expect("a valid tenant id");
    let event = activity_event();
    let records = [ChangeRecord {
        new: Some(event.to_item(&id).expect("the event encodes")),
        ..ChangeRecord::default()
    }];
    let (changes, errors) = monthly_activity_count_changes(&records);
    assert!(errors.is_empty() && !changes.is_empty());
    step!(rec, "stream", repo.apply_counter_changes(&changes).await);
}

/// Global plans beside a tenant's accounts: a role reads the plans and
/// subscribes in a transaction that mixes the tenant's account with a plan.
pub async fn global_roles(rec: &Arc<Recorder>, tenant: Option<&str>) {
    use global_roles::*;
    let repo = Repository::new(rec.client("pk"));
    let id = TenantId::new(tenant.unwrap_or_default()).expect("a valid tenant id");
    let t = repo.for_tenant(&id);
    let account = Account {
        id: "a1".into(),
        plan: "pro".into(),
    };
    let plan = PlanKey { name: "pro".into() };
    step!(rec, "entity", t.put_account(&account).await);
    step!(
        rec,
        "entity",
        t.update_account(&account.key(), AccountUpdate::default().plan("free"))
            .await
    );
    step!(rec, "account", t.account(&account.id).await);
    step!(rec, "plan", repo.plan(&plan.name).await);
    step!(
        rec,
        "plans_by_tier",
        repo.plans_by_tier(Tier::Pro).all().await
    );
    let mut subscribe = t.subscribe();
    subscribe.update_account(&account.key(), AccountUpdate::default().plan("pro"));
    subscribe.update_plan(&plan, PlanUpdate::default().add_subscribers(1));
    step!(rec, "subscribe", subscribe.send().await);
    step!(rec, "entity", t.delete_account(&account.key()).await);
}
