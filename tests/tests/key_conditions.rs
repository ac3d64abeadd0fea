//! Classes the soundness harness covers, each on a spec of its own
//! (`fixtures/pass/`): range conditions return every item whose sort key
//! lies in the range in byte order, an entity is in every index whose key
//! attributes its items have, listed or not, and delimiters that no value
//! can forge (in fixed literals, or held by a key's last placeholder).

use singletable_tests::generated::{
    delimiters_that_forge_nothing, index_membership_by_attributes, range_returns_what_sorts_between,
};
use singletable_tests::server;

async fn client() -> singletable_runtime::sdk::Client {
    server::client(&server::server().await.endpoint)
}

#[tokio::test]
async fn a_range_returns_what_sorts_between_its_bounds() {
    use range_returns_what_sorts_between::*;
    let repo = Repository::new(client().await).with_table_name(server::unique_table("Ranges"));
    repo.create_table().await.unwrap();
    let tenant = TenantId::new("acme").unwrap();
    let t = repo.for_tenant(&tenant);
    let (owner, name) = ("octo", "hello");
    t.put_repo(&Repo {
        owner: owner.into(),
        repo: name.into(),
        description: None,
    })
    .await
    .unwrap();
    for number in [1, 2, 10] {
        t.put_issue(&Issue {
            owner: owner.into(),
            repo: name.into(),
            number,
            title: format!("issue {number}"),
        })
        .await
        .unwrap();
    }
    t.put_star(&Star {
        owner: owner.into(),
        repo: name.into(),
        user: "fan".into(),
    })
    .await
    .unwrap();
    // `lte: REPO#<owner>#<repo>`, descending: the repository, then its
    // issues newest first (`ISSUE#…` < `REPO#…`); the star sorts after.
    let got = t
        .repo_and_issues(owner, name)
        .page_size(1)
        .all()
        .await
        .unwrap();
    let shape: Vec<String> = got
        .iter()
        .map(|i| match i {
            RepoAndIssuesItem::Repo(r) => format!("repo {}", r.repo),
            RepoAndIssuesItem::Issue(i) => format!("issue {}", i.number),
        })
        .collect();
    assert_eq!(shape, ["repo hello", "issue 10", "issue 2", "issue 1"]);

    let user = "ann";
    t.put_profile(&Profile {
        user: user.into(),
        name: "Ann".into(),
    })
    .await
    .unwrap();
    t.put_post(&Post {
        user: user.into(),
        post: "p1".into(),
    })
    .await
    .unwrap();
    for liked in ["a", "c"] {
        t.put_like(&Like {
            user: user.into(),
            liked: liked.into(),
        })
        .await
        .unwrap();
    }
    // `gt: LIKE#<liked>`: the later likes, then every post and the profile.
    let got = t.likes_and_later(user, "b").all().await.unwrap();
    let shape: Vec<String> = got
        .iter()
        .map(|i| match i {
            LikesAndLaterItem::Like(l) => format!("like {}", l.liked),
            LikesAndLaterItem::Post(p) => format!("post {}", p.post),
            LikesAndLaterItem::Profile(p) => format!("profile {}", p.name),
        })
        .collect();
    assert_eq!(shape, ["like c", "post p1", "profile Ann"]);
}

#[tokio::test]
async fn an_entity_is_in_every_index_whose_key_attributes_it_writes() {
    use index_membership_by_attributes::*;
    let repo = Repository::new(client().await).with_table_name(server::unique_table("Membership"));
    repo.create_table().await.unwrap();
    repo.put_user(&User {
        user_id: "ann".into(),
        name: "Ann".into(),
    })
    .await
    .unwrap();
    repo.put_membership(&Membership {
        group_id: "admins".into(),
        user_id: "ann".into(),
    })
    .await
    .unwrap();
    // `User` does not list GSI1, but GSI1 is keyed on the table's own
    // attributes swapped, so every user is there under `PROFILE`.
    let profiles = repo.profiles().all().await.unwrap();
    assert_eq!(
        profiles.iter().map(|u| u.name.as_str()).collect::<Vec<_>>(),
        ["Ann"]
    );
    let groups = repo.groups_of_user("ann").all().await.unwrap();
    assert_eq!(groups.len(), 1);

    repo.put_store(&Store {
        store_id: "s1".into(),
        city: "Paris".into(),
    })
    .await
    .unwrap();
    for (id, city) in [("c1", Some("Paris")), ("c2", None), ("c3", Some("Lyon"))] {
        repo.put_customer(&Customer {
            customer_id: id.into(),
            city: city.map(Into::into),
        })
        .await
        .unwrap();
    }
    // `Customer` does not list ByCity, but its `city` keys it: customers
    // with a city are there, those without are not (a sparse index).
    let people = repo.people_in_city("Paris").all().await.unwrap();
    let mut shape: Vec<String> = people
        .iter()
        .map(|p| match p {
            PeopleInCityItem::Store(s) => format!("store {}", s.store_id),
            PeopleInCityItem::Customer(c) => format!("customer {}", c.customer_id),
        })
        .collect();
    shape.sort();
    assert_eq!(shape, ["customer c1", "store s1"]);
}

#[tokio::test]
async fn delimiters_no_value_can_forge_round_trip() {
    use delimiters_that_forge_nothing::*;
    let repo = Repository::new(client().await).with_table_name(server::unique_table("Tasks"));
    repo.create_table().await.unwrap();
    // Ids holding the `-` of the fixed literals, titles holding `#` and
    // `|`: each key reads back to its values, and a query of one employee
    // returns that employee's notes only.
    for employee in ["ann", "ann-b", "-"] {
        repo.create_employee(&Employee {
            employee: employee.into(),
            name: format!("{employee} name"),
        })
        .await
        .unwrap();
        for title in ["plan", "plan#2", "a|b", "#"] {
            repo.create_note(&Note {
                employee: employee.into(),
                title: title.into(),
                body: format!("{employee}: {title}"),
            })
            .await
            .unwrap();
        }
    }
    let key = EmployeeKey {
        employee: "ann-b".into(),
    };
    let read = repo.employee(&key.employee).await.unwrap().unwrap();
    assert_eq!(read.name, "ann-b name");
    let notes = repo.notes("ann").all().await.unwrap();
    let mut titles: Vec<(String, String)> =
        notes.into_iter().map(|n| (n.employee, n.title)).collect();
    titles.sort();
    assert_eq!(
        titles,
        [
            ("#", "ann"),
            ("a|b", "ann"),
            ("plan", "ann"),
            ("plan#2", "ann")
        ]
        .map(|(t, e)| (e.to_owned(), t.to_owned()))
    );
    let note = repo.note("-", "plan#2").await.unwrap().unwrap();
    assert_eq!(note.body, "-: plan#2");
}
