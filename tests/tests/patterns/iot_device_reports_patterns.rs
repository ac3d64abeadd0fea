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

    let got = repo.device("DEV-A").await.unwrap().expect("the device");
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
