;;; common.el --- helpers shared by eglot_check.el and lsp_check.el  -*- lexical-binding: t; -*-
;; Environment: EA_EALS (server executable), EA_DIR (directory holding
;; bad.ea), EA_EMACS_DIR (editors/emacs of the repo), EA_RESULT (JSON results
;; are written there). A driver calls `ea-run' with its main function; Emacs
;; exits 0 when every check passed, 1 on a failed check, 2 on a Lisp error.

(require 'json)
(require 'cl-lib)
(require 'subr-x)

(package-initialize)  ; Debian's elpa-* packages live in the system package directory
(add-to-list 'load-path (getenv "EA_EMACS_DIR"))
(require 'ea-mode)
(setq ea-eals-command (list (getenv "EA_EALS")))

(defvar ea-results (make-hash-table :test 'equal))
(defvar ea-checks nil)
(defvar ea-failures nil)

(defun ea-put (key value) (puthash key value ea-results))

(defun ea-check (name ok &optional detail)
  (push name ea-checks)
  (unless ok (push (format "%s: %S" name detail) ea-failures))
  ok)

(defun ea-wait (seconds pred)
  "Process server output (and timers) until PRED is non-nil or SECONDS pass."
  (let ((deadline (+ (float-time) seconds)) value)
    (while (and (not (setq value (funcall pred))) (< (float-time) deadline))
      (accept-process-output nil 0.02))
    value))

(defun ea-package-version (name)
  "The installed version of package NAME, e.g. \"1.9\"."
  (package-version-join (package-desc-version (cadr (assq name package-alist)))))

(defun ea-buffer-text () (buffer-substring-no-properties (point-min) (point-max)))

(defun ea-goto (line text &optional offset)
  "Point on the first TEXT of 1-based LINE (plus OFFSET characters)."
  (goto-char (point-min))
  (forward-line (1- line))
  (search-forward text (line-end-position))
  (goto-char (+ (match-beginning 0) (or offset 0))))

(defun ea-position (pos)
  "POS as (LINE COLUMN), 1-based line and 0-based column."
  (save-excursion (goto-char pos) (list (line-number-at-pos) (current-column))))

(defun ea-flymake-list ()
  "The buffer's Flymake diagnostics, as JSON-ready alists in buffer order."
  (mapcar (lambda (d)
            (let ((b (ea-position (flymake-diagnostic-beg d)))
                  (e (ea-position (flymake-diagnostic-end d))))
              `((line . ,(car b)) (col . ,(cadr b)) (end_line . ,(car e)) (end_col . ,(cadr e))
                (type . ,(symbol-name (flymake-diagnostic-type d)))
                (message . ,(flymake-diagnostic-text d)))))
          (sort (flymake-diagnostics) (lambda (a b) (< (flymake-diagnostic-beg a) (flymake-diagnostic-beg b))))))

(defun ea-buffer-contents (name)
  (let ((buf (get-buffer name)))
    (if buf (with-current-buffer buf (ea-buffer-text)) "")))

(defun ea-run (main)
  (let ((err (condition-case e (progn (funcall main) nil)
               (error (format "%S" e)))))
    (when err (ea-put "lisp_error" err))
    (ea-put "checks" (vconcat (reverse ea-checks)))
    (ea-put "failures" (vconcat (reverse ea-failures)))
    (with-temp-file (getenv "EA_RESULT")
      (let ((json-encoding-pretty-print nil)) (insert (json-encode ea-results))))
    (kill-emacs (cond (err 2) (ea-failures 1) (t 0)))))

(provide 'ea-check-common)
;;; common.el ends here
