;;; lsp_check.el --- drives lsp-mode (Debian's elpa-lsp-mode) against the real eals  -*- lexical-binding: t; -*-
;; Run: emacs --batch -l lsp_check.el (environment: see common.el).
;; The client is the one editors/emacs/ea-mode.el registers (`lsp-register-client'
;; for ea-mode); the test directory is added as a workspace folder up front so
;; lsp-mode never prompts for a project root. No yasnippet is installed, as in
;; a plain Debian install: lsp-mode then declares no snippet support.

(load (expand-file-name "common.el" (file-name-directory load-file-name)) nil t)
(load (expand-file-name "lsp_setup.el" (file-name-directory load-file-name)) nil t)

(defvar ea-lsp-logs nil "Messages of every window/logMessage notification.")
(defvar ea-lsp-error-logs nil "Messages of Error-type window/logMessage notifications.")
(advice-add 'lsp--window-log-message :before
            (lambda (_workspace params)
              (push (gethash "message" params) ea-lsp-logs)
              (when (eql (gethash "type" params) 1)
                (push (gethash "message" params) ea-lsp-error-logs))))

(defun ea-lsp-diagnostics (pred &optional seconds)
  (ea-wait (or seconds 15) (lambda () (flymake-start) (funcall pred (ea-flymake-list))))
  (ea-flymake-list))

(defun ea-lsp-stderr ()
  (mapconcat (lambda (b) (with-current-buffer b (ea-buffer-text)))
             (cl-remove-if-not (lambda (b) (string-match-p "stderr" (buffer-name b))) (buffer-list))
             ""))

(defun ea-lsp-main ()
  (ea-put "lsp_mode" (ea-package-version 'lsp-mode))
  (let ((dir (file-name-as-directory (getenv "EA_DIR"))))
    (lsp-workspace-folders-add dir)
    (find-file (expand-file-name "bad.ea" dir)))
  (ea-put "major_mode" (symbol-name major-mode))
  (lsp)
  (ea-wait 15 (lambda () (and (lsp-workspaces)
                              (eq (lsp--workspace-status (car (lsp-workspaces))) 'initialized))))
  (unless (ea-check "connected" (lsp-workspaces) (ea-lsp-stderr))
    (error "lsp-mode did not connect"))
  (ea-put "server_name" (lsp--workspace-print (car (lsp-workspaces))))

  ;; 1. Diagnostics: one error, at its line and columns.
  (let ((diags (ea-lsp-diagnostics (lambda (ds) ds))))
    (ea-wait 0.5 #'ignore)  ; anything more (a duplicate) would arrive now
    (ea-put "diagnostics" (vconcat (ea-lsp-diagnostics (lambda (_) t) 0)))
    (ea-check "one diagnostic" (= (length diags) 1) diags))

  ;; 2. The quick fix with the cursor at column 0 (lsp-mode sends an empty range
  ;; at point and the line's diagnostics as context).
  (ea-goto 2 "return")
  (beginning-of-line)
  (let ((actions (lsp-code-actions-at-point "quickfix")))
    (ea-put "code_actions" (vconcat (mapcar (lambda (a) (gethash "title" a)) actions)))
    (when (ea-check "one quick fix" (= (length actions) 1) (length actions))
      (lsp-execute-code-action (elt actions 0))))
  (ea-put "text_after_fix" (ea-buffer-text))
  (ea-put "diagnostics_after_fix" (length (ea-lsp-diagnostics #'null)))

  ;; 3. Completion: `vad' completes to `vadd', inserted as plain text (with
  ;; snippet items lsp-mode calls `yas-expand-snippet', void here).
  (ea-goto 6 "vadd(a, a)")
  (delete-region (point) (line-end-position))
  (insert "vad")
  (let* ((capf (lsp-completion-at-point))
         (start (nth 0 capf)) (end (nth 1 capf)) (table (nth 2 capf))
         (exit (plist-get (nthcdr 3 capf) :exit-function))
         (candidates (all-completions (buffer-substring-no-properties start end) table))
         (choice (car (member "vadd" candidates))))
    (ea-put "completion_candidates" (vconcat (mapcar #'substring-no-properties candidates)))
    (when (ea-check "vadd offered" choice candidates)
      (delete-region start end)
      (goto-char start)
      (insert choice)
      (ea-put "completion_exit"
              (condition-case e (progn (when exit (funcall exit choice 'finished)) "ok")
                (error (format "%S" e))))))
  (ea-put "completed_line" (buffer-substring-no-properties (line-beginning-position) (line-end-position)))
  (delete-region (line-beginning-position) (line-end-position))
  (insert "    return vadd(a, a)")

  ;; 4. Hover on the function name, rendered as lsp-mode renders it.
  (ea-goto 1 "vadd" 1)
  (let* ((reply (ea-wait 15 (lambda ()
                              (let ((r (lsp-request "textDocument/hover" (lsp--text-document-position-params))))
                                (and r (string-match-p "instructions" (format "%S" (gethash "contents" r)))
                                     r)))))
         (contents (and reply (gethash "contents" reply))))
    (ea-put "hover" (if contents (substring-no-properties (lsp--render-on-hover-content contents t)) "")))

  ;; 5. Definition: from the call in `twice' to line 1.
  (ea-goto 6 "vadd" 1)
  (lsp-find-definition)
  (ea-put "definition" (vconcat (ea-position (point))))
  (ea-put "definition_buffer" (buffer-name))

  ;; 6. Rename `vadd' -> `vsum' (definition and call), then a refused rename.
  (ea-goto 1 "vadd" 1)
  (lsp-rename "vsum")
  (ea-put "text_after_rename" (ea-buffer-text))
  (save-buffer)
  (ea-put "saved" (not (buffer-modified-p)))
  (ea-goto 10 "sqrt" 1)
  (ea-put "refused_rename"
          (condition-case e (progn (lsp-rename "root2") "no error")
            (error (error-message-string e))))
  (ea-put "text_after_refusal" (ea-buffer-text))

  ;; 7. A bad setting is reported in the log (a Warning, not an Error).
  (lsp-notify "workspace/didChangeConfiguration" '(:settings (:ea (:opt_level 7))))
  (ea-wait 5 (lambda () ea-lsp-logs))
  (ea-put "stderr" (ea-lsp-stderr))
  (ea-put "logs" (vconcat (reverse ea-lsp-logs)))
  (ea-put "error_logs" (vconcat (reverse ea-lsp-error-logs))))

(ea-run #'ea-lsp-main)
;;; lsp_check.el ends here
