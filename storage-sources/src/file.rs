//! Reading a file line by line: one record per line, in one partition (0) whose offsets are
//! byte offsets, so a restart seeks to exactly the line after the last one stored.
//!
//! Without TAIL the file is read to its end once (a last line without a line break is a record
//! too) and the reader is then finished. With TAIL it keeps watching for appended lines; a line
//! is only read once its line break is there, so a line being written is never read half.
//! Blank lines are skipped; a `\r\n` ending counts as a line break. A file that becomes shorter
//! than what was read is an error (it was truncated or replaced).

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufRead, BufReader, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::records::{Record, RecordReader};

pub struct FileReader {
    path: PathBuf,
    reader: BufReader<File>,
    tail: bool,
    /// Partition 0's next offset: the byte after the last line returned.
    next: BTreeMap<i32, i64>,
    finished: bool,
}

impl FileReader {
    /// Opens `path` at byte `offset` (0: the start, after the header line if `header`).
    pub fn open(path: &Path, tail: bool, header: bool, offset: i64) -> Result<FileReader, String> {
        let file = File::open(path).map_err(|e| format!("cannot open {}: {e}", path.display()))?;
        let len = file
            .metadata()
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?
            .len();
        if offset as u64 > len {
            return Err(format!(
                "{} is shorter ({len} bytes) than what was read of it ({offset} bytes): it was \
                 truncated or replaced",
                path.display()
            ));
        }
        let mut reader = BufReader::new(file);
        reader
            .seek(SeekFrom::Start(offset as u64))
            .map_err(|e| format!("cannot seek in {}: {e}", path.display()))?;
        let mut this = FileReader {
            path: path.to_path_buf(),
            reader,
            tail,
            next: BTreeMap::from([(0, offset)]),
            finished: false,
        };
        if header && offset == 0 {
            // The header is consumed only once it is complete.
            let mut line = Vec::new();
            let n = this
                .reader
                .read_until(b'\n', &mut line)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            if line.ends_with(b"\n") || !tail {
                this.next.insert(0, n as i64);
            } else {
                this.reader
                    .seek(SeekFrom::Start(0))
                    .map_err(|e| format!("cannot seek in {}: {e}", path.display()))?;
            }
        }
        Ok(this)
    }

    fn offset(&self) -> i64 {
        self.next[&0]
    }
}

impl RecordReader for FileReader {
    fn poll(&mut self, max: usize, wait: Duration) -> Result<Vec<Record>, String> {
        let mut out = Vec::new();
        if self.finished {
            std::thread::sleep(wait);
            return Ok(out);
        }
        while out.len() < max {
            let start = self.offset();
            let mut line = Vec::new();
            let n = self
                .reader
                .read_until(b'\n', &mut line)
                .map_err(|e| format!("cannot read {}: {e}", self.path.display()))?;
            if n == 0 {
                // The end, for now.
                if !self.tail {
                    self.finished = true;
                } else if out.is_empty() {
                    let len = std::fs::metadata(&self.path)
                        .map_err(|e| format!("cannot read {}: {e}", self.path.display()))?
                        .len();
                    if len < start as u64 {
                        return Err(format!(
                            "{} became shorter ({len} bytes) than what was read of it ({start} \
                             bytes): it was truncated or replaced",
                            self.path.display()
                        ));
                    }
                    std::thread::sleep(wait);
                }
                break;
            }
            if !line.ends_with(b"\n") && self.tail {
                // A line still being written: read it again once it is complete.
                self.reader
                    .seek(SeekFrom::Start(start as u64))
                    .map_err(|e| format!("cannot seek in {}: {e}", self.path.display()))?;
                if out.is_empty() {
                    std::thread::sleep(wait);
                }
                break;
            }
            self.next.insert(0, start + n as i64);
            while line.last().is_some_and(|b| *b == b'\n' || *b == b'\r') {
                line.pop();
            }
            if line.is_empty() {
                continue;
            }
            out.push(Record {
                headers_error: None,
                partition: 0,
                offset: start,
                key: None,
                value: Some(line),
                timestamp: None,
                headers: Vec::new(),
            });
        }
        Ok(out)
    }

    fn positions(&self) -> &BTreeMap<i32, i64> {
        &self.next
    }

    fn high_watermarks(&self) -> BTreeMap<i32, i64> {
        std::fs::metadata(&self.path)
            .map(|m| BTreeMap::from([(0, m.len() as i64)]))
            .unwrap_or_default()
    }

    fn finished(&self) -> bool {
        self.finished
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn values(records: &[Record]) -> Vec<String> {
        records
            .iter()
            .map(|r| String::from_utf8(r.value.clone().unwrap()).unwrap())
            .collect()
    }

    #[test]
    fn lines_header_resume_and_a_half_written_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.csv");
        std::fs::write(&path, "a,b\n1,x\r\n\n2,y\n3,").unwrap();
        let wait = Duration::from_millis(1);
        // Without TAIL: everything, the last line too, then finished.
        let mut r = FileReader::open(&path, false, true, 0).unwrap();
        let got = r.poll(100, wait).unwrap();
        assert_eq!(values(&got), ["1,x", "2,y", "3,"]);
        assert!(r.finished());
        // With TAIL: the half-written last line waits for its line break.
        let mut r = FileReader::open(&path, true, true, 0).unwrap();
        assert_eq!(values(&r.poll(100, wait).unwrap()), ["1,x", "2,y"]);
        let resume_at = r.positions()[&0];
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        f.write_all(b"z\n4,w\n").unwrap();
        assert_eq!(values(&r.poll(100, wait).unwrap()), ["3,z", "4,w"]);
        // Resuming at a stored offset reads on from there, the header not again.
        let mut again = FileReader::open(&path, true, true, resume_at).unwrap();
        let got = again.poll(100, wait).unwrap();
        assert_eq!(values(&got), ["3,z", "4,w"]);
        assert_eq!(got[0].offset, resume_at);
        // A file shorter than what was read is an error.
        std::fs::write(&path, "1\n").unwrap();
        assert!(FileReader::open(&path, true, false, resume_at)
            .err()
            .unwrap()
            .contains("truncated"));
        assert!(again.poll(10, wait).unwrap_err().contains("truncated"));
    }
}
